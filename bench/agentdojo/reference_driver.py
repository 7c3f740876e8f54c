#!/usr/bin/env python3
"""Runs AgentDojo's own Python (the reference, pinned at 96046ab54) and prints, as JSON, what the harness's port
must reproduce: each suite's environment text as the reference dumps it, its injection vectors, its tools' JSON
schemas, every user and injection task (prompt or goal, ground truth calls, expected output), and, for each ground
truth run through the reference's FunctionsRuntime, every tool output string (tool_result_to_str, or the runtime's
error text), the final environment's hash and the task's own check (utility or security). With --attacks, the
injections each attack writes for every (user task, injection task) and the hash of the injected environment.
With --judges, the utility and security verdicts of every (user task, injection task) pair over three
trajectories (user ground truth, injection ground truth, both in turn), for the ported checks to reproduce.

Usage: reference_driver.py --src <checkout>/src --suite banking|slack|... --version v1.2.1
                           [--attacks important_instructions,...] [--judges] [--user-name ... --model-name ...]

The reference's package imports every LLM client (openai, anthropic, cohere, google, ...) and rich; none is
installed here and none is used by what this driver runs, so each missing module is served by an empty stand-in
(`install_stand_ins`). Everything else is the reference's own code. Nothing printed is the reference's verdict on
the harness: it is the reference's own output, to be compared by bench/agentdojo/fidelity.mjs.
"""
import argparse
import datetime
import enum
import hashlib
import importlib.abc
import importlib.machinery
import json
import math
import sys
import types

STUBBED = ('openai', 'anthropic', 'cohere', 'google', 'vertexai', 'rich', 'tenacity', 'requests', 'dotenv', 'click',
           'transformers', 'torch', 'langchain', 'httpx', 'jsonref')


class _Anything(types.ModuleType):
    """A module whose every attribute is another stand-in: `from openai.types import X` and `X | None` work."""

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        full = f'{self.__name__}.{name}'
        if full not in sys.modules:
            sys.modules[full] = _stand_in(full)
        return sys.modules[full]

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __getitem__(self, item):
        return self

    def __mro_entries__(self, bases):
        return (object,)

    def __iter__(self):
        return iter(())


def _stand_in(name):
    module = _Anything(name)
    module.__path__ = []
    return module


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split('.')[0] in STUBBED:
            try:
                if fullname.split('.')[0] == fullname:
                    for finder in sys.meta_path:
                        if finder is self:
                            continue
                        spec = getattr(finder, 'find_spec', lambda *a: None)(fullname, path, target)
                        if spec is not None:
                            return spec
            except Exception:
                pass
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _stand_in(spec.name)

    def exec_module(self, module):
        pass


def install_stand_ins():
    sys.meta_path.insert(0, _Finder())


def canonical(value):
    """The environment as JSON the harness compares: model_dump(mode='json'), integral floats as integers."""
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 2 ** 53:
            return int(value)
        return value
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def canonical_text(value):
    return json.dumps(canonical(value), sort_keys=True, separators=(',', ':'), ensure_ascii=False)


def env_hash(env):
    return hashlib.sha256(canonical_text(env.model_dump()).encode()).hexdigest()


def call_json(call):
    out = {'function': call.function, 'args': canonical(dict(call.args))}
    if call.placeholder_args is not None:
        out['placeholder_args'] = canonical(dict(call.placeholder_args))
    return out


def run_calls(suite, env, calls):
    """Each call through the reference's runtime as its ToolsExecutor runs an agent's call: output text or error."""
    from agentdojo.functions_runtime import FunctionsRuntime
    from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
    runtime = FunctionsRuntime(suite.tools)
    outputs = []
    for call in calls:
        result, error = runtime.run_function(env, call.function, dict(call.args))
        outputs.append({'error': error} if error is not None else {'output': tool_result_to_str(result)})
    return outputs


def tool_schemas(suite):
    return [{'name': f.name, 'description': f.description, 'parameters': f.parameters.model_json_schema()} for f in suite.tools]


def describe_suite(suite, version):
    from agentdojo.task_suite.task_suite import read_suite_file
    from agentdojo.functions_runtime import FunctionCall
    text = read_suite_file(suite.name, 'environment.yaml', suite.data_path)
    defaults = suite.get_injection_vector_defaults()
    vectors_text = read_suite_file(suite.name, 'injection_vectors.yaml', suite.data_path)
    out = {'suite': suite.name, 'version': version, 'environment_text': text, 'vectors_text': vectors_text,
           'injection_defaults': defaults, 'tools': tool_schemas(suite), 'user_tasks': [], 'injection_tasks': []}
    default_env = suite.load_and_inject_default_environment({})
    out['default_env_hash'] = env_hash(default_env)
    out['default_env'] = canonical(default_env.model_dump())
    for task_id, task in suite.user_tasks.items():
        env = task.init_environment(suite.load_and_inject_default_environment({}))
        pre = env.model_copy(deep=True)
        calls = task.ground_truth(pre.model_copy(deep=True))
        outputs = run_calls(suite, env, calls)
        utility = suite._check_task_result(task, [{'type': 'text', 'content': task.GROUND_TRUTH_OUTPUT}], pre, env, calls)
        out['user_tasks'].append({'id': task_id, 'prompt': task.PROMPT, 'ground_truth_output': task.GROUND_TRUTH_OUTPUT,
                                  'difficulty': task.DIFFICULTY.name, 'ground_truth': [call_json(c) for c in calls],
                                  'outputs': outputs, 'final_hash': env_hash(env), 'utility': bool(utility)})
    for task_id, task in suite.injection_tasks.items():
        env = suite.load_and_inject_default_environment({})
        pre = env.model_copy(deep=True)
        calls = task.ground_truth(pre.model_copy(deep=True))
        outputs = run_calls(suite, env, calls)
        security = suite._check_task_result(task, [{'type': 'text', 'content': task.GROUND_TRUTH_OUTPUT}], pre, env, calls)
        out['injection_tasks'].append({'id': task_id, 'goal': task.GOAL, 'ground_truth_output': task.GROUND_TRUTH_OUTPUT,
                                       'difficulty': task.DIFFICULTY.name, 'ground_truth': [call_json(c) for c in calls],
                                       'outputs': outputs, 'final_hash': env_hash(env), 'security': bool(security)})
    return out


def judges(suite):
    """Utility and security of every pair over three trajectories: the checks as the reference runs them."""
    verdicts = []
    for user_id, user_task in suite.user_tasks.items():
        for inj_id, inj_task in suite.injection_tasks.items():
            for kind in ('user', 'injection', 'both'):
                env = user_task.init_environment(suite.load_and_inject_default_environment({}))
                pre = env.model_copy(deep=True)
                calls = []
                output = ''
                if kind in ('user', 'both'):
                    calls += user_task.ground_truth(pre.model_copy(deep=True))
                    output = user_task.GROUND_TRUTH_OUTPUT
                if kind in ('injection', 'both'):
                    calls += inj_task.ground_truth(pre.model_copy(deep=True))
                    output = (output + ' ' + inj_task.GROUND_TRUTH_OUTPUT).strip()
                run_calls(suite, env, calls)
                content = [{'type': 'text', 'content': output}]
                utility = suite._check_task_result(user_task, content, pre, env, calls)
                security = suite._check_task_result(inj_task, content, pre, env, calls)
                verdicts.append({'user_task': user_id, 'injection_task': inj_id, 'trajectory': kind, 'output': output,
                                 'utility': bool(utility), 'security': bool(security)})
    return verdicts


def attacks(suite, names, user_name, model_name):
    from agentdojo.attacks.attack_registry import ATTACKS
    import agentdojo.attacks  # noqa: F401  registers the attacks

    class Pipeline:
        name = model_name

    out = []
    for name in names:
        attack = ATTACKS[name](suite, Pipeline())
        if user_name:
            attack.user_name = user_name
        for user_id, user_task in suite.user_tasks.items():
            try:
                candidates = attack.get_injection_candidates(user_task)
            except ValueError:
                out.append({'attack': name, 'user_task': user_id, 'not_injectable': True})
                continue
            tasks = [None] if attack.is_dos_attack else list(suite.injection_tasks.items())
            for entry in tasks:
                inj_id, inj_task = entry if entry else ('dos', next(iter(suite.injection_tasks.values())))
                injections = attack.attack(user_task, inj_task)
                env = suite.load_and_inject_default_environment(injections)
                out.append({'attack': name, 'user_task': user_id, 'injection_task': inj_id, 'candidates': candidates,
                            'injections': injections, 'env_hash': env_hash(env)})
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--src', required=True)
    parser.add_argument('--suite', required=True)
    parser.add_argument('--version', default='v1.2.1')
    parser.add_argument('--attacks', default='')
    parser.add_argument('--judges', action='store_true')
    parser.add_argument('--model-name', default='gpt-4o-2024-05-13', help='the pipeline name the attacks read the model from')
    parser.add_argument('--user-name', default='')
    args = parser.parse_args()
    install_stand_ins()
    sys.path.insert(0, args.src)
    from agentdojo.task_suite.load_suites import get_suite
    suite = get_suite(args.version, args.suite)
    out = describe_suite(suite, args.version)
    if args.judges:
        out['judges'] = judges(suite)
    if args.attacks:
        out['attacks'] = attacks(suite, [a for a in args.attacks.split(',') if a], args.user_name, args.model_name)
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main()
