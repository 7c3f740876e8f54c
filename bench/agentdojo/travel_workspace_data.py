"""AgentDojo's travel and workspace suites as catalog data, from the reference (sequrity-ai/agentdojo 96046ab54):
catalog/data/agentdojo/{travel,workspace}/ gets the suite's data files as published (environment.yaml,
injection_vectors.yaml, include/*.yaml), tools.json (each tool's name, description and parameter schema as the
reference gives them to a model: make_function's docstring and pydantic schema) and tasks.json in the foundation's
form (shared/data.ts: per benchmark version v1.2.1 and v1.1.2, each task's prompt or goal, ground truth on the
default environment, expected output and difficulty); plugins/shims/agentdojo/{travel,workspace}/params.ts gets
each tool's description and parameters as TypeScript.

Usage: PYTHONPATH=<site>:/tmp/agentdojo-ref/src python3 bench/agentdojo/travel_workspace_data.py <reference src dir>
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import travel_workspace_reference as ref  # noqa: E402  (installs the import stubs, freezes the clock)

from agentdojo.task_suite.load_suites import get_suite  # noqa: E402


def py_type(schema):
    """A parameter's pydantic schema as the foundation's PyType expression (shared/types.ts)."""
    if "anyOf" in schema:
        inner = [s for s in schema["anyOf"] if s != {"type": "null"}]
        return f"optional({py_type(inner[0])})"
    if "$ref" in schema:
        return "strEnum('SharingPermission', ['r', 'rw'])"
    kind = schema.get("type")
    if kind == "string":
        return "'str'"
    if kind == "integer":
        return "'int'"
    if kind == "array":
        return f"list({py_type(schema['items'])})"
    if kind == "object":
        return "dict('any')"
    raise ValueError(f"no PyType for {schema}")


def params_module(name, specs):
    """plugins/shims/agentdojo/<suite>/params.ts: each tool's docstring summary and parameters, as pydantic gives them."""
    lines = [
        "/**",
        f" * The {name} suite's tool descriptions and parameters as the reference offers them to a model (make_function:",
        " * the docstring's summary and :param: texts, pydantic's types and defaults), written by",
        " * bench/agentdojo/travel_workspace_data.py from the reference at 96046ab54. `parameters` is pydantic's schema itself",
        " * where the foundation's PyType cannot write it ($defs for an enum, `additionalProperties: true` for a dict).",
        " */",
        "import type { Json } from '../../../../core/shim.ts';",
        "import { dict, list, optional, strEnum } from '../shared/types.ts';",
        "import type { ToolParam } from '../shared/define.ts';",
        "",
        "/** A tool's text and parameters. */",
        "export interface ToolSpec { description: string; params: ToolParam[]; parameters?: Record<string, Json> }",
        "",
        "export const TOOL_SPECS: Record<string, ToolSpec> = {",
    ]
    used = set()
    for spec in specs:
        schema = spec["parameters"]
        params = []
        exotic = "$defs" in schema or "additionalProperties" in json.dumps(schema)
        for pname, p in schema.get("properties", {}).items():
            t = py_type(p)
            used.update(x for x in ("dict", "list", "optional", "strEnum") if x + "(" in t)
            entry = f"{{ name: {json.dumps(pname)}, type: {t}, description: {json.dumps(p.get('description', ''), ensure_ascii=False)}"
            if "default" in p:
                entry += f", default: {json.dumps(p['default'])}"
            params.append(entry + " }")
        extra = f", parameters: {json.dumps(schema, ensure_ascii=False)}" if exotic else ""
        lines.append(f"  {spec['name']}: {{ description: {json.dumps(spec['description'], ensure_ascii=False)}, params: [{', '.join(params)}]{extra} }},")
    lines.append("};")
    lines[7] = f"import {{ {', '.join(sorted(used))} }} from '../shared/types.ts';" if used else ""
    return "\n".join(l for l in lines) + "\n"


def tool_specs(suite):
    return [{"name": f.name, "description": f.description, "parameters": f.parameters.model_json_schema()} for f in suite.tools]


def task_entry(suite, task, kind):
    """A task as the foundation's tasks.json holds it (shared/data.ts), ground truth on the default environment."""
    env = ref.default_env(suite)
    if kind == "user":
        env = task.init_environment(env)
    calls = []
    for c in task.ground_truth(env):
        call = {"function": c.function, "args": dict(c.args)}
        if c.placeholder_args is not None:
            call["placeholder_args"] = dict(c.placeholder_args)
        calls.append(call)
    text = {"prompt": task.PROMPT} if kind == "user" else {"goal": task.GOAL}
    return {"id": task.ID, **text, "ground_truth_output": task.GROUND_TRUTH_OUTPUT, "difficulty": task.DIFFICULTY.name, "ground_truth": calls}


def main(src):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for name in ["travel", "workspace"]:
        out = os.path.join(root, "catalog", "data", "agentdojo", name)
        os.makedirs(out, exist_ok=True)
        data = os.path.join(src, "agentdojo", "data", "suites", name)
        files = ["environment.yaml", "injection_vectors.yaml"]
        if os.path.isdir(os.path.join(data, "include")):
            files += [os.path.join("include", f) for f in sorted(os.listdir(os.path.join(data, "include")))]
        for rel in files:
            os.makedirs(os.path.dirname(os.path.join(out, rel)), exist_ok=True)
            shutil.copyfile(os.path.join(data, rel), os.path.join(out, rel))
        versions = {}
        for version in ["v1.2.1", "v1.1.2"]:
            suite = get_suite(version, name)
            versions[version] = {
                "user_tasks": [task_entry(suite, t, "user") for t in suite.user_tasks.values()],
                "injection_tasks": [task_entry(suite, t, "injection") for t in suite.injection_tasks.values()],
            }
        with open(os.path.join(out, "tasks.json"), "w") as f:
            json.dump({"suite": name, "reference": "agentdojo 0.1.34 at 96046ab54 (ethz-spylab/agentdojo history, via sequrity-ai/agentdojo)", "versions": versions}, f, ensure_ascii=False, indent=1)
            f.write("\n")
        specs = tool_specs(get_suite("v1.2.1", name))
        with open(os.path.join(out, "tools.json"), "w") as f:
            json.dump(specs, f, ensure_ascii=False, indent=1)
            f.write("\n")
        with open(os.path.join(root, "plugins", "shims", "agentdojo", name, "params.ts"), "w") as f:
            f.write(params_module(name, specs))
        print(name, {v: (len(t["user_tasks"]), len(t["injection_tasks"])) for v, t in versions.items()}, "->", out)


if __name__ == "__main__":
    main(sys.argv[1])
