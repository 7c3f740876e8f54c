#!/usr/bin/env python3
"""The reference's own environment step for AgentDojo's cases (issue 35 "Speed"), timed inside Python: what
AgentDojo's benchmark runs per case with no model, the ground truth as the agent (its GroundTruthPipeline).

For each suite, each user task without attack (`run_task_with_pipeline(GroundTruthPipeline(user_task), user_task,
None, {})`: the environment loaded and injected with the defaults, the task's init, the ground truth's calls
through its FunctionsRuntime and tool_result_to_str, the utility check), and with --attack each (user task,
injection task) case as `benchmark_suite_with_injections` runs it: the attack's injections (its
get_injection_candidates replays the ground truth with canaries), the injected environment loaded, the same
pipeline, utility and security. Prints JSON: per suite the cases, their seconds and how many the reference's own
checks passed (the ground truth: utility true, security false).

Usage: reference_throughput.py --src <checkout>/src --suites banking,slack --version v1.2.1
                               [--attack important_instructions] [--model-name gpt-4o-2024-05-13] [--rounds 1]
"""
import argparse
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_driver import install_stand_ins  # noqa: E402  the LLM clients' stand-ins, as the fidelity driver


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--src', required=True)
    parser.add_argument('--suites', default='banking,slack')
    parser.add_argument('--version', default='v1.2.1')
    parser.add_argument('--attack', default='important_instructions')
    parser.add_argument('--model-name', default='gpt-4o-2024-05-13')
    args = parser.parse_args()
    install_stand_ins()
    sys.path.insert(0, args.src)
    warnings.simplefilter('ignore')
    from agentdojo.task_suite.load_suites import get_suite
    from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
    from agentdojo.attacks.attack_registry import ATTACKS
    import agentdojo.attacks  # noqa: F401  registers the attacks

    class Pipeline:
        name = args.model_name

    out = {'version': args.version, 'attack': args.attack or None, 'suites': []}
    for name in [s for s in args.suites.split(',') if s]:
        suite = get_suite(args.version, name)
        attack = ATTACKS[args.attack](suite, Pipeline()) if args.attack else None
        plain = attacked = not_injectable = 0
        utility_ok = security_ok = 0
        started = time.perf_counter()
        for user_task in suite.user_tasks.values():
            utility, _ = suite.run_task_with_pipeline(GroundTruthPipeline(user_task), user_task, None, {})
            plain += 1
            utility_ok += bool(utility)
            if attack is None:
                continue
            try:
                attack.get_injection_candidates(user_task)
            except ValueError:
                not_injectable += 1
                continue
            for injection_task in suite.injection_tasks.values():
                injections = attack.attack(user_task, injection_task)
                utility, security = suite.run_task_with_pipeline(GroundTruthPipeline(user_task), user_task, injection_task, injections)
                attacked += 1
                utility_ok += bool(utility)
                security_ok += not security
        seconds = time.perf_counter() - started
        out['suites'].append({'suite': name, 'no_attack': plain, 'attacked': attacked, 'not_injectable': not_injectable,
                              'seconds': seconds, 'utility': utility_ok, 'resisted': security_ok})
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
