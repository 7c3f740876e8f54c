"""AgentDojo's travel and workspace suites as catalog data, from the reference (sequrity-ai/agentdojo 96046ab54):
catalog/data/agentdojo/{travel,workspace}/ gets the suite's data files as published (environment.yaml,
injection_vectors.yaml, include/*.yaml), tools.json (each tool's name, description and parameter schema as the
reference gives them to a model: make_function's docstring and pydantic schema) and tasks.json (each task class's
prompt or goal, ground truth on the default environment, expected output, difficulty, the parts of a combined task,
and which class each benchmark version uses).

Usage: PYTHONPATH=<site>:/tmp/agentdojo-ref/src python3 bench/agentdojo/travel_workspace_data.py <reference src dir>
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import travel_workspace_reference as ref  # noqa: E402  (installs the import stubs, freezes the clock)

from agentdojo.task_suite.load_suites import get_suite  # noqa: E402


def tool_specs(suite):
    return [{"name": f.name, "description": f.description, "parameters": f.parameters.model_json_schema()} for f in suite.tools]


def task_entry(suite, task, kind):
    env = ref.default_env(suite)
    if kind == "user":
        env = task.init_environment(env)
    entry = {"ground_truth": ref.call_data(task.ground_truth(env)), "ground_truth_output": task.GROUND_TRUTH_OUTPUT}
    if kind == "user":
        entry.update(prompt=task.PROMPT, difficulty=task.DIFFICULTY.name)
        parts = ref.combined_of(task)
        if parts:
            entry["combines"] = [ref.class_key(p) for p in parts]
    else:
        entry.update(goal=task.GOAL, difficulty=task.DIFFICULTY.name)
    return entry


def main(src):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for name in ["travel", "workspace"]:
        out = os.path.join(root, "catalog", "data", "agentdojo", name)
        os.makedirs(out, exist_ok=True)
        data = os.path.join(src, "agentdojo", "data", "suites", name)
        for rel in ["environment.yaml", "injection_vectors.yaml"] + [os.path.join("include", f) for f in sorted(os.listdir(os.path.join(data, "include")))] if os.path.isdir(os.path.join(data, "include")) else ["environment.yaml", "injection_vectors.yaml"]:
            os.makedirs(os.path.dirname(os.path.join(out, rel)), exist_ok=True)
            shutil.copyfile(os.path.join(data, rel), os.path.join(out, rel))
        classes, sets = {}, {}
        for version in ref.VERSIONS:
            suite = get_suite(version, name)
            sets[version] = {"user_tasks": {}, "injection_tasks": {}}
            for kind, tasks in (("user", suite.user_tasks), ("injection", suite.injection_tasks)):
                for tid, task in tasks.items():
                    key = ref.class_key(task)
                    sets[version][f"{kind}_tasks"][tid] = key
                    for one in [task, *(ref.combined_of(task) or [])]:
                        classes.setdefault(ref.class_key(one), task_entry(suite, one, kind))
        with open(os.path.join(out, "tasks.json"), "w") as f:
            json.dump({"reference": "sequrity-ai/agentdojo 96046ab54 (agentdojo 0.1.34)", "versions": sets, "tasks": classes}, f, ensure_ascii=False, indent=1, sort_keys=True)
            f.write("\n")
        with open(os.path.join(out, "tools.json"), "w") as f:
            json.dump(tool_specs(get_suite("v1.2.1", name)), f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(name, len(classes), "task classes ->", out)


if __name__ == "__main__":
    main(sys.argv[1])
