#!/usr/bin/env python3
"""Runs every task's gold actions through τ-bench's own Python tools and prints each final database's hash.

Usage: reference_driver.py --src <tau2 checkout>/src --db <db.json> --tasks <tasks.json> --ids <ids.json>
                           --domain retail|airline|telecom [--results] [--evaluate --trials N]
       reference_driver.py --src <tau2 checkout>/src --db <db.toml> --domain telecom --dump-db <db.json>

It loads the reference's real `tau2/domains/<domain>/data_model.py` and `tools.py` from the checkout given. Their
imports of the rest of the τ-bench package are served by the smallest stand-ins, because that package's
dependencies are not installable here from Debian (only pydantic is needed, and present):
  - tau2.environment.toolkit: ToolKitBase (keeps `db`), ToolType (the enum's names), is_tool (marks the
    function): the tool registry, which the gold replay does not use (it calls the methods directly,
    as τ-bench's `ToolKitBase.use_tool` does);
  - tau2.environment.db: DB = a pydantic BaseModel with extra="forbid" (τ-bench's BaseModelNoExtra), without
    its file loading and hashing helpers;
  - tau2.domains.<domain>.utils: the database paths (unused: the database is passed in);
  - loguru: a logger whose methods do nothing.
Telecom (tools.py, data_model.py and utils.py, the last for its fixed today 2025-02-25): --db is the release's
db.toml, read with the standard library's tomllib and validated as the reference's DB.load does; the database is
hashed and results rendered as the environment renders a tool's answer to the agent (pydantic's model_dump(),
dates through str(): `2025-01-20 14:30:00`), and --dump-db writes the database so rendered, which is what the
telecom shim's state is. Before a task's gold actions, its initialization actions on the agent's side
(env_type "assistant": set_data_usage, suspend_line_for_overdue_bill, ...) run, as the environment's set_state
runs them; only gold actions whose requestor is the assistant are replayed (the user's act on their device).
With --evaluate (bench/tau/throughput.mjs), it times what τ-bench's own run does per task and trial with no model,
its environment step: the simulation's environment built from the database file (`get_environment`:
`RetailDB.load`), the agent's tool calls (here the gold actions, each result rendered to JSON as a tool message)
run on it, then `EnvironmentEvaluator.calculate_reward`'s database check: a predicted environment built afresh
that replays the trajectory's calls (checking each response, as `set_state(strict=True)` does), a gold
environment built afresh that replays the gold actions, and both `get_db_hash()` (`get_pydantic_hash`: SHA-256
of `json.dumps(model_dump(), sort_keys=True, default=str)`) compared. It prints the units, the seconds they took
(interpreter start-up and module loading excluded) and how many matched.
Nothing of this driver's output is τ-bench's: it prints, per task, the SHA-256 of the canonical JSON (RFC 8785,
null members dropped) of the final database, and whether each action succeeded (with --results, the canonical
JSON of what it returned; else the message of the error it raised).
"""
import argparse
import copy
import datetime
import enum
import hashlib
import importlib.util
import json
import math
import pathlib
import sys
import types

from pydantic import BaseModel, ConfigDict


def stand_in(name, **members):
    module = types.ModuleType(name)
    module.__dict__.update(members)
    module.__path__ = []  # importable as a package
    sys.modules[name] = module
    return module


def install_stand_ins(domain):
    class ToolType(str, enum.Enum):
        READ = "read"
        WRITE = "write"
        THINK = "think"
        GENERIC = "generic"

    def is_tool(tool_type=None, **_):
        def mark(function):
            function.__tool__ = True  # what ToolKitBase.tools lists, and use_tool accepts
            return function

        return mark

    class ToolKitBase:
        def __init__(self, db=None):
            self.db = db

    class DB(BaseModel):
        model_config = ConfigDict(extra="forbid")

    class Logger:
        def __getattr__(self, _name):
            return lambda *args, **kwargs: None

    stand_in("loguru", logger=Logger())
    stand_in("tau2")
    stand_in("tau2.environment")
    stand_in("tau2.environment.toolkit", ToolKitBase=ToolKitBase, ToolType=ToolType, is_tool=is_tool)
    stand_in("tau2.environment.db", DB=DB)
    stand_in("tau2.domains")
    stand_in(f"tau2.domains.{domain}")
    stand_in(f"tau2.domains.{domain}.utils", RETAIL_DB_PATH=None, AIRLINE_DB_PATH=None)
    stand_in("tau2.utils", get_dict_hash=None)
    stand_in("tau2.utils.utils", DATA_DIR=pathlib.Path("/nonexistent"))
    stand_in("tau2.utils.pydantic_utils", BaseModelNoExtra=DB)


def load_reference(src, domain, name):
    qualified = f"tau2.domains.{domain}.{name}"
    spec = importlib.util.spec_from_file_location(qualified, f"{src}/tau2/domains/{domain}/{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    spec.loader.exec_module(module)
    return module


def js_number(value):
    """A number as ECMAScript (and so RFC 8785) writes it."""
    if isinstance(value, bool):
        raise TypeError("bool is not a number")
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError("non-finite number")
    if value == 0:
        return "0"
    digits_text = repr(abs(value))
    # Shortest round-trip digits from repr, then ECMAScript's layout.
    if "e" in digits_text:
        body, _, exp = digits_text.partition("e")
        exp = int(exp)
    else:
        body, exp = digits_text, 0
    if "." in body:
        whole, frac = body.split(".")
    else:
        whole, frac = body, ""
    digits = (whole + frac).lstrip("0")
    point = len(whole.lstrip("0")) + exp if whole.strip("0") else exp - (len(frac) - len(frac.lstrip("0")))
    digits = digits.rstrip("0") or "0"
    sign = "-" if value < 0 else ""
    k, n = len(digits), point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return sign + head + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def canonical(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical(member) for member in value) + "]"
    if isinstance(value, dict):
        keys = sorted((key for key in value if value[key] is not None), key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(key, ensure_ascii=False) + ":" + canonical(value[key]) for key in keys) + "}"
    raise TypeError(f"not JSON: {type(value)}")


def jsonable(value):
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, (list, tuple)):
        return [jsonable(member) for member in value]
    return value


def rendered(value):
    """What the agent is shown of a tool's answer (Environment.to_json_str: a model's model_dump() as it is, a date
    met outside a model in isoformat(), the rest of the dates through json.dumps' default=str), parsed back."""
    if isinstance(value, str):
        return value

    def plain(member):
        if isinstance(member, BaseModel):
            return member.model_dump()
        if isinstance(member, (list, tuple)):
            return [plain(item) for item in member]
        if isinstance(member, dict):
            return {key: plain(item) for key, item in member.items()}
        if isinstance(member, (datetime.date, datetime.datetime)):
            return member.isoformat()
        return member

    return json.loads(json.dumps(plain(value), default=str))


def db_json(db):
    """The database as τ-bench's own hash sees it (json.dumps of model_dump(), default=str), parsed back."""
    return json.loads(json.dumps(db.model_dump(), default=str))


def db_hash(db):
    return hashlib.sha256(canonical(db_json(db)).encode("utf-8")).hexdigest()


def pydantic_hash(db):
    """τ-bench's `DB.get_hash()` (tau2.utils.pydantic_utils.get_pydantic_hash, utils.get_dict_hash)."""
    return hashlib.sha256(json.dumps(db.model_dump(), sort_keys=True, default=str).encode()).hexdigest()


def tool_message(result):
    """A tool's answer as the environment hands it to the agent (JSON text of what it returned)."""
    return json.dumps(jsonable(result), default=str)


def evaluate(args, db_class, tools_class, tasks, ids):
    """The environment step of τ-bench's run of every task, `trials` times: see the module's docstring."""
    import time

    def environment():
        with open(args.db) as handle:  # RetailDB.load(path): the file read and validated per environment
            return tools_class(db_class.model_validate(json.load(handle)))

    def play(tools, actions):
        responses = []
        for action in actions:
            try:
                responses.append(tool_message(getattr(tools, action["name"])(**action["arguments"])))
            except Exception as error:  # the agent is told the error and goes on
                responses.append(f"Error: {error}")
        return responses

    started = time.perf_counter()
    matched = 0
    for _trial in range(args.trials):
        for task_id in ids:
            gold_actions = (tasks[task_id].get("evaluation_criteria") or {}).get("actions") or []
            # The simulation: the agent's calls (the oracle's: the gold actions) on a fresh environment.
            trajectory = play(environment(), gold_actions)
            # calculate_reward: the trajectory replayed on a fresh environment, responses checked (strict)...
            predicted = environment()
            if play(predicted, gold_actions) != trajectory:
                raise SystemExit(f"task {task_id}: the replay answered differently")
            # ...and the gold actions on another; the databases compared by hash.
            gold = environment()
            play(gold, gold_actions)
            matched += pydantic_hash(gold.db) == pydantic_hash(predicted.db)
    seconds = time.perf_counter() - started
    json.dump({"units": args.trials * len(ids), "seconds": seconds, "matched": matched}, sys.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", required=True)
    parser.add_argument("--db", required=True, help="the database JSON (as the shims read it)")
    parser.add_argument("--tasks")
    parser.add_argument("--ids", help="JSON array of the task ids to run")
    parser.add_argument("--domain", required=True, choices=["retail", "airline", "telecom"])
    parser.add_argument("--dump-db", help="telecom: write the validated database, rendered as JSON, to this file")
    parser.add_argument("--results", action="store_true", help="also print each successful call's result")
    parser.add_argument("--evaluate", action="store_true", help="time τ-bench's environment step per task and trial instead")
    parser.add_argument("--trials", type=int, default=1)
    args = parser.parse_args()

    install_stand_ins(args.domain)
    telecom = args.domain == "telecom"
    if telecom:
        load_reference(args.src, "telecom", "utils")
    data_model = load_reference(args.src, args.domain, "data_model")
    tools_module = load_reference(args.src, args.domain, "tools")
    db_class = {"retail": "RetailDB", "airline": "FlightDB", "telecom": "TelecomDB"}[args.domain]
    db_class = getattr(data_model, db_class)
    tools_class = getattr(tools_module, {"retail": "RetailTools", "airline": "AirlineTools", "telecom": "TelecomTools"}[args.domain])

    if telecom:
        import tomllib

        with open(args.db, "rb") as handle:
            raw = tomllib.load(handle)
    else:
        with open(args.db) as handle:
            raw = json.load(handle)
    if args.dump_db:
        with open(args.dump_db, "w") as handle:
            json.dump(db_json(db_class.model_validate(raw)), handle, indent=1)
        return
    with open(args.tasks) as handle:
        tasks = {task["id"]: task for task in json.load(handle)}
    with open(args.ids) as handle:
        ids = json.load(handle)

    if args.evaluate:
        return evaluate(args, db_class, tools_class, tasks, ids)

    out = {"initial": db_hash(db_class.model_validate(raw)), "tasks": {}}
    for task_id in ids:
        tools = tools_class(db_class.model_validate(copy.deepcopy(raw)))
        outcomes = []
        actions = (tasks[task_id].get("evaluation_criteria") or {}).get("actions") or []
        if telecom:
            for call in (tasks[task_id].get("initial_state") or {}).get("initialization_actions") or []:
                if call["env_type"] == "assistant":
                    getattr(tools, call["func_name"])(**call["arguments"])
            actions = [action for action in actions if action.get("requestor", "assistant") == "assistant"]
        for action in actions:
            try:
                if not getattr(getattr(tools, action["name"], None), "__tool__", False):
                    raise ValueError(f"Tool '{action['name']}' not found.")
                result = getattr(tools, action["name"])(**action["arguments"])
                outcomes.append(("ok " + canonical(rendered(result) if telecom else jsonable(result))) if args.results else "ok")
            except Exception as error:  # τ-bench's evaluator logs and goes on
                outcomes.append(f"error: {error}")
        out["tasks"][task_id] = {"hash": db_hash(tools.db), "actions": outcomes}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
