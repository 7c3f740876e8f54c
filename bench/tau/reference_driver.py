#!/usr/bin/env python3
"""Runs every task's gold actions through τ-bench's own Python tools and prints each final database's hash.

Usage: reference_driver.py --src <tau2 checkout>/src --data <data dir> --domain retail|airline [--split base]

It loads the reference's real `tau2/domains/<domain>/data_model.py` and `tools.py` from the checkout given. Their
imports of the rest of the τ-bench package are served by the smallest stand-ins, because that package's
dependencies are not installable here from Debian (only pydantic is needed, and present):
  - tau2.environment.toolkit: ToolKitBase (keeps `db`), ToolType (the enum's names), is_tool (returns the
    function unchanged): the tool registry, which the gold replay does not use (it calls the methods directly,
    as τ-bench's `ToolKitBase.use_tool` does);
  - tau2.environment.db: DB = a pydantic BaseModel with extra="forbid" (τ-bench's BaseModelNoExtra), without
    its file loading and hashing helpers;
  - tau2.domains.<domain>.utils: the database paths (unused: the database is passed in);
  - loguru: a logger whose methods do nothing.
Nothing of this driver's output is τ-bench's: it prints, per task, the SHA-256 of the canonical JSON (RFC 8785,
null members dropped) of the final database, and whether each action succeeded (with --results, the canonical
JSON of what it returned; else the message of the error it raised).
"""
import argparse
import copy
import enum
import hashlib
import importlib.util
import json
import math
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
        return lambda function: function

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


def db_hash(db):
    return hashlib.sha256(canonical(db.model_dump()).encode("utf-8")).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", required=True)
    parser.add_argument("--db", required=True, help="the database JSON (as the shims read it)")
    parser.add_argument("--tasks", required=True)
    parser.add_argument("--ids", required=True, help="JSON array of the task ids to run")
    parser.add_argument("--domain", required=True, choices=["retail", "airline"])
    parser.add_argument("--results", action="store_true", help="also print each successful call's result")
    args = parser.parse_args()

    install_stand_ins(args.domain)
    data_model = load_reference(args.src, args.domain, "data_model")
    tools_module = load_reference(args.src, args.domain, "tools")
    db_class = data_model.RetailDB if args.domain == "retail" else data_model.FlightDB
    tools_class = tools_module.RetailTools if args.domain == "retail" else tools_module.AirlineTools

    with open(args.db) as handle:
        raw = json.load(handle)
    with open(args.tasks) as handle:
        tasks = {task["id"]: task for task in json.load(handle)}
    with open(args.ids) as handle:
        ids = json.load(handle)

    out = {"initial": db_hash(db_class.model_validate(raw)), "tasks": {}}
    for task_id in ids:
        tools = tools_class(db_class.model_validate(copy.deepcopy(raw)))
        outcomes = []
        for action in (tasks[task_id].get("evaluation_criteria") or {}).get("actions") or []:
            try:
                result = getattr(tools, action["name"])(**action["arguments"])
                outcomes.append("ok " + canonical(jsonable(result)) if args.results else "ok")
            except Exception as error:  # τ-bench's evaluator logs and goes on
                outcomes.append(f"error: {error}")
        out["tasks"][task_id] = {"hash": db_hash(tools.db), "actions": outcomes}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
