#!/usr/bin/env python3
"""τ²-bench's telecom domain with dual control, run by the reference's own Python: both worlds of every task.

Usage: reference_telecom.py --src <tau2 checkout>/src --db <db.toml> --user-db <user_db.toml> --tasks <tasks.json>
                            --ids <ids.json>

Unlike reference_driver.py (which loads only a domain's tools and data model), this loads the real
`tau2.domains.telecom.environment` (TelecomEnvironment, with its `sync_tools`), `user_tools.py`,
`user_data_model.py` and `tau2.environment.environment` from the checkout given. What the package imports
only for models, logging or printing (loguru, litellm, pandas, rich, httpx, deepdiff, docstring_parser, toml,
addict) is served by inert stand-ins: no code this driver runs calls them (the databases are read with the
standard library's tomllib and validated as `DB.load` does).

Per task it prints, as the harness's fidelity check reads them (bench/tau/fidelity.mjs --dual):
  - init: both databases after the task's initialization actions (`Environment.set_state`: each action then
    `sync_tools`), as the SHA-256 of their canonical JSON (RFC 8785, null members dropped), and the user's
    database itself (`user_db`), which the harness ships as the task's starting device;
  - actions: every gold action of either requestor played as the orchestrator plays a tool call
    (`make_tool_call`, then `sync_tools`, as `get_response` and the step that follows do): `ok <canonical JSON of
    what the caller is shown>` or `error: <message>`;
  - live: both hashes after them; assertions: each env assertion's result (`run_env_assertion`,
    raise_assertion_error=False), in order; checked: both hashes after the assertions (each syncs);
  - gold_env: both hashes of the evaluator's gold environment (`calculate_reward`: the gold actions by
    `make_tool_call`, which does not sync between them).
The toolkit's class-level `default_vpn_details` (which `break_vpn` degrades in place, for every later
environment of the process) is reset before each task, so each task runs as in a fresh process.
"""
import argparse
import copy
import json
import sys
import tomllib
import types

sys.path.insert(0, __import__("os").path.dirname(__file__))
from reference_driver import canonical, rendered  # noqa: E402


class _Inert:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Inert()

    def __getattr__(self, _name):
        return _Inert()


def install_stand_ins():
    class Logger:
        def __getattr__(self, _name):
            return lambda *args, **kwargs: None

    loguru = types.ModuleType("loguru")
    loguru.logger = Logger()
    sys.modules["loguru"] = loguru
    for name in ["pandas", "toml", "addict", "deepdiff", "docstring_parser", "httpx", "litellm", "litellm.caching", "litellm.caching.caching", "litellm.main", "rich", "rich.console", "rich.panel", "rich.markup", "rich.table", "rich.text"]:
        module = types.ModuleType(name)
        module.__path__ = []
        module.__getattr__ = lambda _name: _Inert()
        sys.modules[name] = module


def db_json(db):
    return json.loads(json.dumps(db.model_dump(), default=str))


def db_hash(db):
    return __import__("hashlib").sha256(canonical(db_json(db)).encode("utf-8")).hexdigest()


def hashes(env):
    return {"agent": db_hash(env.tools.db), "user": db_hash(env.user_tools.db)}


def shown(result):
    """What the caller is shown (Environment.to_json_str), as canonical JSON: a string as a JSON string."""
    return canonical(result if isinstance(result, str) else rendered(result))


def main():
    parser = argparse.ArgumentParser()
    for name in ["src", "db", "user-db", "tasks", "ids"]:
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.src)
    install_stand_ins()
    from tau2.data_model.tasks import EnvAssertion, EnvFunctionCall
    from tau2.domains.telecom.data_model import TelecomDB
    from tau2.domains.telecom.environment import TelecomEnvironment
    from tau2.domains.telecom.tools import TelecomTools
    from tau2.domains.telecom.user_data_model import PerformanceLevel, TelecomUserDB, VpnDetails
    from tau2.domains.telecom.user_tools import TelecomUserTools

    with open(args.db, "rb") as handle:
        raw = tomllib.load(handle)
    with open(args.user_db, "rb") as handle:
        raw_user = tomllib.load(handle)
    with open(args.tasks) as handle:
        tasks = {task["id"]: task for task in json.load(handle)}
    with open(args.ids) as handle:
        ids = json.load(handle)

    def environment():
        TelecomUserTools.default_vpn_details = VpnDetails(server_address="192.168.1.1", protocol="OpenVPN", server_performance=PerformanceLevel.EXCELLENT)
        tools = TelecomTools(TelecomDB.model_validate(copy.deepcopy(raw)))
        user_tools = TelecomUserTools(TelecomUserDB.model_validate(copy.deepcopy(raw_user)))
        return TelecomEnvironment(domain_name="telecom", policy="", tools=tools, user_tools=user_tools)

    out = {"initial": hashes(environment()), "tasks": {}}
    for task_id in ids:
        task = tasks[task_id]
        init = [EnvFunctionCall.model_validate(call) for call in (task.get("initial_state") or {}).get("initialization_actions") or []]
        criteria = task.get("evaluation_criteria") or {}
        gold = criteria.get("actions") or []
        env = environment()
        env.set_state(initialization_data=None, initialization_actions=init, message_history=[])
        entry = {"init": {**hashes(env), "user_db": db_json(env.user_tools.db)}}
        outcomes = []
        for action in gold:
            try:
                result = env.make_tool_call(action["name"], requestor=action.get("requestor", "assistant"), **action["arguments"])
                env.sync_tools()
                outcomes.append("ok " + shown(result))
            except Exception as error:  # the caller is told the error and goes on
                outcomes.append(f"error: {error}")
            env.sync_tools()  # the orchestrator's step ends with a sync, whatever the call did
        entry["actions"] = outcomes
        entry["live"] = hashes(env)
        assertions = [EnvAssertion.model_validate(item) for item in criteria.get("env_assertions") or []]
        entry["assertions"] = [env.run_env_assertion(assertion, raise_assertion_error=False) for assertion in assertions]
        entry["checked"] = hashes(env)
        gold_env = environment()
        gold_env.set_state(initialization_data=None, initialization_actions=init, message_history=[])
        for action in gold:
            try:
                gold_env.make_tool_call(action["name"], requestor=action.get("requestor", "assistant"), **action["arguments"])
            except Exception:
                pass
        entry["gold_env"] = hashes(gold_env)
        out["tasks"][task_id] = entry
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
