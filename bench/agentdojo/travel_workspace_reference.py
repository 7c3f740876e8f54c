"""Reference outputs for AgentDojo's travel and workspace suites, from the reference implementation itself
(sequrity-ai/agentdojo at 96046ab54, package 0.1.34), recorded as the fixture
plugins/shims/agentdojo/{travel,workspace}/fidelity.fixture.json.gz that vitest checks without Python, and the task
data catalog/data/agentdojo/{travel,workspace}/tasks.json.

Usage (Python 3.11, pydantic 2, PyYAML; deepdiff, docstring_parser, email_validator installed --no-index):
  git -C <mirror> archive 96046ab54 src | tar x -C /tmp/agentdojo-ref
  PYTHONPATH=<site>:/tmp/agentdojo-ref/src PYTHONHASHSEED=0 python3 bench/agentdojo/travel_workspace_reference.py [--write]

What is recorded, per suite:
- every user and injection task class in the v1.2.1 and v1.1.2 task sets (and v1 .. v1.2 when a class differs):
  its ground truth run on the default environment: each call's output text (tool_result_to_str, YAML as PyYAML
  dumps it) or error text, the final world hash, DeepDiff's report pre -> post, and the task's own check on it;
- every (user task, injection task) pair of both task sets: the user's ground truth followed by the injection's,
  with utility, security and DeepDiff on the result; security on the user's run alone, utility on the attacker's alone;
- every user task's injection candidates (canaries through its ground truth, the reference's rule) and, for every
  registered attack but `manual`, against the pipeline "gpt-4o-2024-05-13" (model name "GPT-4"), every pair's
  injections and the injected world (digests);
- probes: call sequences beyond the ground truths (error texts, edge cases), their outputs and final world.
--probes rewrites only the probes of the recorded fixtures.
The clock: the reference stamps new mail and files with datetime.now(); it is frozen at FROZEN_NOW here, the
world's logical clock on our side.
"""
import datetime
import gzip
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import travel_workspace_stubs  # noqa: E402

travel_workspace_stubs.install()

FROZEN_NOW = datetime.datetime(2025, 8, 9, 12, 34, 56, 789000)


class _FrozenDatetime(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return FROZEN_NOW


class _FrozenModule:
    """The `datetime` module as the tools see it, with a frozen `datetime.now`."""

    def __getattr__(self, name):
        return _FrozenDatetime if name == "datetime" else getattr(datetime, name)


import agentdojo.default_suites.v1.tools.cloud_drive_client as cloud_drive_client  # noqa: E402
import agentdojo.default_suites.v1.tools.email_client as email_client  # noqa: E402

email_client.datetime = _FrozenModule()
cloud_drive_client.datetime = _FrozenModule()

import yaml  # noqa: E402
from deepdiff import DeepDiff  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from agentdojo.agent_pipeline.tool_execution import tool_result_to_str  # noqa: E402
from agentdojo.functions_runtime import FunctionsRuntime  # noqa: E402
from agentdojo.strenum import StrEnum  # noqa: E402
from agentdojo.task_suite.load_suites import get_suite  # noqa: E402

VERSIONS = ["v1", "v1.1", "v1.1.1", "v1.1.2", "v1.2", "v1.2.1"]
PAIR_VERSIONS = ["v1.1.2", "v1.2.1"]
EXCLUDE = ["root.inbox.sent", "root.inbox.received", "root.inbox.drafts", "root.responses", "root.model_fields_set",
           "root.calendar.initial_events", "root.inbox.initial_emails", "root.cloud_drive.initial_files"]
INITIAL_LISTS = {"initial_events", "initial_emails", "initial_files"}
COMPUTED = {"received", "sent", "drafts"}


def tagged(value):
    """A tool result as our shims return it: Python's types that JSON loses (datetime, date, float) tagged."""
    if isinstance(value, BaseModel):
        return tagged(value.model_dump())
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, datetime.datetime):
        return {"py": "datetime", "iso": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"py": "date", "iso": value.isoformat()}
    if isinstance(value, float):
        return {"py": "float", "value": value}
    if isinstance(value, dict):
        return {str(k): tagged(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tagged(v) for v in value]
    return value


def world(env):
    """The world as our shims hold it: pydantic's JSON dump without the initial_* lists (the same objects the
    keyed dicts hold) and the computed views; integral floats as JS writes them."""
    def strip(value, depth=0):
        if isinstance(value, dict):
            return {k: strip(v, depth + 1) for k, v in value.items()
                    if not (depth == 1 and (k in INITIAL_LISTS or k in COMPUTED))}
        if isinstance(value, list):
            return [strip(v, depth + 1) for v in value]
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value
    return strip(env.model_dump(mode="json"))


def world_hash(env):
    text = json.dumps(world(env), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def diff_report(pre, post):
    diff = DeepDiff(pre, post, exclude_paths=EXCLUDE)
    report = {}
    for key in diff.keys():
        items = diff[key]
        if key == "type_changes":
            report[key] = {path: [type(c["old_value"]).__name__, str(c["old_value"]), type(c["new_value"]).__name__, str(c["new_value"])] for path, c in items.items()}
        else:
            report[key] = sorted(items if not isinstance(items, dict) else items.keys())
    return report


def run_calls(suite, env, calls):
    runtime = FunctionsRuntime(suite.tools)
    outputs = []
    for call in calls:
        result, error = runtime.run_function(env, call.function, call.args)
        outputs.append({"text": tool_result_to_str(result), "error": error, "value": tagged(result) if error is None else None})
    return outputs


def call_data(calls):
    return [{"function": c.function, "args": c.args} for c in calls]


def safely(check):
    try:
        return bool(check())
    except Exception as e:  # the reference lets a check's KeyError escape; we record it as its own outcome
        return f"{type(e).__name__}: {e}"


def class_key(task):
    """A task class's key: its id and the module of the version that wrote it; a combined task also names its parts
    (UserTask23 combines user_task_22 of v1 at v1 and v1.1, of v1_1_1 from v1.1.1 on)."""
    key = f"{task.ID}@{type(task).__module__.split('.')[2]}"
    parts = combined_of(task)
    return f"{key}({class_key(parts[0])}+{class_key(parts[1])})" if parts else key


def combined_of(task):
    """A TaskCombinator task's two parts (their utility runs non-strict, then strict), by class key."""
    utility = type(task).__dict__.get("utility")
    if utility is None or not utility.__closure__:
        return None
    cells = dict(zip(utility.__code__.co_freevars, (c.cell_contents for c in utility.__closure__)))
    if "user_task_1" not in cells:
        return None
    return [cells["user_task_1"], cells["user_task_2"]]


_DEFAULT = {}


def default_env(suite):
    """The default environment, loaded once per suite version (loading re-parses the YAML: the slow part)."""
    key = (suite.name, id(suite))
    if key not in _DEFAULT:
        _DEFAULT[key] = suite.load_and_inject_default_environment({})
    return _DEFAULT[key].model_copy(deep=True)


def record_task(suite, task, kind):
    pre = default_env(suite)
    if kind == "user":
        pre = task.init_environment(pre)
    post = pre.model_copy(deep=True)
    calls = task.ground_truth(pre)
    outputs = run_calls(suite, post, calls)
    check = task.utility if kind == "user" else task.security
    entry = {
        "ground_truth": call_data(calls), "ground_truth_output": task.GROUND_TRUTH_OUTPUT,
        "outputs": outputs, "hash": world_hash(post), "diff": diff_report(pre, post),
        "check": safely(lambda: check(task.GROUND_TRUTH_OUTPUT, pre.model_copy(deep=True), post.model_copy(deep=True))),
    }
    if kind == "user":
        entry["prompt"] = task.PROMPT
        entry["difficulty"] = task.DIFFICULTY.name
        parts = combined_of(task)
        if parts:
            entry["combines"] = [class_key(p) for p in parts]
    else:
        entry["goal"] = task.GOAL
    return entry


class _Pipeline:
    name = "gpt-4o-2024-05-13"


def record_pairs(suite):
    pairs = {}
    for uid, user in suite.user_tasks.items():
        for iid, inj in suite.injection_tasks.items():
            pre = user.init_environment(default_env(suite))
            both = pre.model_copy(deep=True)
            run_calls(suite, both, user.ground_truth(pre))
            run_calls(suite, both, inj.ground_truth(pre))
            only_user = pre.model_copy(deep=True)
            run_calls(suite, only_user, user.ground_truth(pre))
            only_inj = pre.model_copy(deep=True)
            run_calls(suite, only_inj, inj.ground_truth(pre))
            out = user.GROUND_TRUTH_OUTPUT + inj.GROUND_TRUTH_OUTPUT
            # Each check gets its own copy of the world before: some mutate it (get_unread marks mail read), and
            # the reference gives every run a fresh one.
            fresh = lambda: pre.model_copy(deep=True)  # noqa: E731
            pairs[f"{uid}|{iid}"] = {
                "hash": world_hash(both), "diff": diff_report(pre, both),
                "utility": safely(lambda: user.utility(out, fresh(), both.model_copy(deep=True))),
                "security": safely(lambda: inj.security(out, fresh(), both.model_copy(deep=True))),
                "security_user_only": safely(lambda: inj.security(user.GROUND_TRUTH_OUTPUT, fresh(), only_user)),
                "utility_injection_only": safely(lambda: user.utility(inj.GROUND_TRUTH_OUTPUT, fresh(), only_inj)),
            }
    return pairs


def injections_digest(injections):
    """SHA-256 of the injections as JSON of the sorted entries (what JSON.stringify writes on our side)."""
    text = json.dumps(sorted(injections.items()), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_injections(suite, worlds):
    """Every user task's injection candidates, and for every registered attack but `manual` (it asks on stdin),
    against the pipeline "gpt-4o-2024-05-13", every (user task, injection task) pair's injections (a DoS attack:
    one per user task, "dos") as [digest, injected world hash], each cut to 16 hex digits. `worlds` caches the
    injected world's hash by the injections' digest (the world is a function of the injections alone)."""
    from agentdojo.attacks.attack_registry import ATTACKS
    import agentdojo.attacks  # noqa: F401  registers the attacks

    candidates, by_attack = {}, {}
    for name in ATTACKS:
        if name == "manual":
            continue
        attack = ATTACKS[name](suite, _Pipeline())
        rows = {}
        for uid, user in suite.user_tasks.items():
            try:
                candidates[uid] = attack.get_injection_candidates(user)
            except ValueError:
                candidates[uid] = []
                continue
            if attack.is_dos_attack:
                targets = [("dos", next(iter(suite.injection_tasks.values())))]
            else:
                targets = list(suite.injection_tasks.items())
            for iid, inj in targets:
                injections = attack.attack(user, inj)
                digest = injections_digest(injections)
                if digest not in worlds:
                    worlds[digest] = world_hash(suite.load_and_inject_default_environment(injections))
                rows[f"{uid}|{iid}"] = [digest[:16], worlds[digest][:16]]
        by_attack[name] = rows
    return candidates, by_attack


EVENT = {"title": "Probe", "description": "D", "start_time": "2024-05-20T10:00", "end_time": "2024-05-20T11:00",
         "location": "Room 1", "participants": ["x@example.com"]}
OFFICE_PROBES = [
    [("cancel_calendar_event", {"event_id": "999"}), ("cancel_calendar_event", {"event_id": "6"}), ("search_calendar_events", {"query": "zzz"})],
    [("reschedule_calendar_event", {"event_id": "999", "new_start_time": "2024-05-20 10:00"})],
    [("reschedule_calendar_event", {"event_id": "6", "new_start_time": "2024-05-20 10:00"}),
     ("reschedule_calendar_event", {"event_id": "6", "new_start_time": "2024-05-21 09:30", "new_end_time": "2024-05-21 12:00"})],
    [("reschedule_calendar_event", {"event_id": "6", "new_start_time": "next monday"})],
    [("add_calendar_event_participants", {"event_id": "999", "participants": ["a@example.com"]})],
    [("add_calendar_event_participants", {"event_id": "6", "participants": ["a@example.com", "b@example.com"]})],
    [("create_calendar_event", {"title": "T", "start_time": "2024-05-20 10:00", "end_time": "2024-05-20 11:00"})],
    [("create_calendar_event", {"title": "T", "start_time": "tomorrow", "end_time": "2024-05-20 11:00"})],
    [("create_calendar_event", {"title": "T", "start_time": "2024-05-20 10:00", "end_time": "2024-05-20 11:00", "description": "d",
                                "participants": ["z@example.com", "a@example.com", "m@example.com"], "location": "L"})],
    [("search_calendar_events", {"query": "meeting", "date": "2024-05-15"}), ("search_calendar_events", {"query": "meeting", "date": "May 15"})],
    [("get_day_calendar_events", {"day": "2024-05-15"}), ("get_day_calendar_events", {"day": "2024-13-45"}), ("get_day_calendar_events", {"day": "2030-01-01"}),
     ("get_day_calendar_events", {"day": "2023-02-29"}), ("get_day_calendar_events", {"day": "2024-5-1"}), ("get_day_calendar_events", {"day": "2024-05-123"}),
     ("get_day_calendar_events", {"day": "2024-05-15 10:00"})],
    [("create_calendar_event", {"title": "T", "start_time": "2024-05-20 10:00:00", "end_time": "2024-05-20 11:00"})],
    [("create_calendar_event", {"title": "T", "start_time": "2024-05-20T10:00", "end_time": "2024-05-20 11:00"})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "attachments": [{"type": "event", "event_details": {"title": "T"}}]})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "cc": ["c@example.com"], "bcc": ["d@example.com"]})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "attachments": [{"type": "event", "event_details": EVENT}]})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "attachments": [{"file_id": "0"}]})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "attachments": [{"type": "file"}]})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "attachments": [{"type": "event"}]})],
]
WORKSPACE_PROBES = OFFICE_PROBES + [
    [("get_current_day", {}), ("get_unread_emails", {}), ("get_unread_emails", {}), ("get_draft_emails", {})],
    [("delete_email", {"email_id": "999"}), ("delete_email", {"email_id": "0"}), ("get_sent_emails", {})],
    [("search_emails", {"query": "zzzqqq"}), ("search_emails", {"query": "", "sender": "david.smith@bluesparrowtech.com"})],
    [("search_contacts_by_name", {"query": "zzz"}), ("search_contacts_by_email", {"query": "zzz"}), ("search_contacts_by_name", {"query": "david"}),
     ("search_contacts_by_email", {"query": "bluesparrowtech"})],
    [("send_email", {"recipients": ["a@example.com"], "subject": "S", "body": "B", "attachments": [{"type": "file", "file_id": "0"}]}), ("get_sent_emails", {})],
    [("get_file_by_id", {"file_id": "999"}), ("delete_file", {"file_id": "999"}), ("share_file", {"file_id": "999", "email": "a@example.com", "permission": "r"}),
     ("append_to_file", {"file_id": "999", "content": "x"})],
    [("delete_file", {"file_id": "0"}), ("get_file_by_id", {"file_id": "0"})],
    [("share_file", {"file_id": "1", "email": "a@example.com", "permission": "rw"}), ("append_to_file", {"file_id": "1", "content": "\nmore: é ✓"})],
    [("create_file", {"filename": "notes.txt", "content": "line one\nline two: 'quoted' \"double\" 100.0"}), ("search_files_by_filename", {"filename": "notes"}),
     ("search_files", {"query": "line two"})],
    [("search_files", {"query": "zzzqqq"}), ("search_files_by_filename", {"filename": "zzzqqq"})],
]
TRAVEL_PROBES = OFFICE_PROBES + [
    [("get_user_information", {}), ("get_all_hotels_in_city", {"city": "Nowhere"}), ("get_hotels_prices", {"hotel_names": ["Nope"]}),
     ("get_hotels_address", {"hotel_name": "Nope"}), ("get_rating_reviews_for_hotels", {"hotel_names": []})],
    [("get_all_restaurants_in_city", {"city": "Nowhere"}), ("get_cuisine_type_for_restaurants", {"restaurant_names": ["Nope"]}),
     ("get_price_for_restaurants", {"restaurant_names": ["Nope", "Le Baratin"]}), ("get_dietary_restrictions_for_all_restaurants", {"restaurant_names": ["Baratin"]}),
     ("check_restaurant_opening_hours", {"restaurant_names": ["Le Baratin"]})],
    [("get_all_car_rental_companies_in_city", {"city": "Nowhere"}), ("get_car_types_available", {"company_name": ["Nope"]}),
     ("get_car_price_per_day", {"company_name": ["SunSet Rent-A-Car"]}), ("get_car_fuel_options", {"company_name": ["SunSet Rent-A-Car"]})],
    [("reserve_hotel", {"hotel": "Le Marais Boutique", "start_day": "2025-13-01", "end_day": "2025-01-15"})],
    [("reserve_hotel", {"hotel": "Nope", "start_day": "2025-01-01", "end_day": "2025-01-02"})],
    [("reserve_hotel", {"hotel": "Nope", "start_day": "2025-02-29", "end_day": "2025-03-02"})],
    [("reserve_hotel", {"hotel": "Nope", "start_day": "2025-01-01", "end_day": "January 2nd"})],
    [("reserve_car_rental", {"company": "Nope", "start_time": "2025-01-01 10:00", "end_time": None})],
    [("reserve_car_rental", {"company": "Nope", "start_time": "2025-01-01 10:00", "end_time": "soon"})],
    [("reserve_restaurant", {"restaurant": "Nope", "start_time": "2025-01-01 19:00"}), ("reserve_restaurant", {"restaurant": "Nope", "start_time": "7pm"})],
    [("get_flight_information", {"departure_city": "Paris", "arrival_city": "London"}), ("get_flight_information", {"departure_city": "Nowhere", "arrival_city": "X"})],
]


def record_probes(suite, probes):
    """Calls beyond the ground truths, each sequence on a fresh default world: the tools' error texts and edge cases
    (unknown ids, bad dates, attachments, half-done reservations); each call's output and the final world's hash."""
    out = []
    for sequence in probes:
        env = default_env(suite)
        calls = [{"function": f, "args": a} for f, a in sequence]
        outputs = [{"text": o["text"], "error": o["error"]} for o in run_calls_data(suite, env, calls)]
        # The calls as JSON text: the fixture's sort_keys would reorder their arguments (an attachment's dict is
        # printed in the reference's order).
        out.append({"calls": json.dumps(calls, ensure_ascii=False), "outputs": outputs, "hash": world_hash(env)})
    return out


def run_calls_data(suite, env, calls):
    runtime = FunctionsRuntime(suite.tools)
    outputs = []
    for call in calls:
        result, error = runtime.run_function(env, call["function"], call["args"])
        outputs.append({"text": tool_result_to_str(result), "error": error})
    return outputs


def add_probes(root):
    """Rewrites the recorded fixtures with the probes only (the rest kept as recorded)."""
    for name, probes in (("travel", TRAVEL_PROBES), ("workspace", WORKSPACE_PROBES)):
        path = os.path.join(root, "plugins", "shims", "agentdojo", name, "fidelity.fixture.json.gz")
        with open(path, "rb") as f:
            fixture = json.loads(gzip.decompress(f.read()))
        fixture["probes"] = record_probes(get_suite("v1.2.1", name), probes)
        out = json.dumps(fixture, ensure_ascii=False, indent=None, separators=(",", ":"), sort_keys=True)
        with open(path, "wb") as f:
            f.write(gzip.compress((out + "\n").encode("utf-8"), mtime=0))
        print(name, "probes", len(fixture["probes"]), "->", path)


def main(write):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    if "--probes" in sys.argv:
        add_probes(root)
        return
    for name in ["travel", "workspace"]:
        classes, sets = {}, {}
        for version in VERSIONS:
            suite = get_suite(version, name)
            sets[version] = {"user_tasks": {}, "injection_tasks": {}}
            for kind, tasks in (("user", suite.user_tasks), ("injection", suite.injection_tasks)):
                for tid, task in tasks.items():
                    key = class_key(task)
                    sets[version][f"{kind}_tasks"][tid] = key
                    for one in [task, *(combined_of(task) or [])]:
                        if class_key(one) not in classes:
                            classes[class_key(one)] = record_task(suite, one, kind)
        base = get_suite("v1.2.1", name)
        initial = base.load_and_inject_default_environment({})
        fixture = {
            "reference": "sequrity-ai/agentdojo 96046ab54 (agentdojo 0.1.34)", "frozen_now": FROZEN_NOW.isoformat(),
            "initial_hash": world_hash(initial), "initial_world": world(initial), "sets": sets, "tasks": classes,
            "pairs": {}, "candidates": {}, "attacks": {}, "attack_model_name": "GPT-4",
            "injection_defaults": base.get_injection_vector_defaults(),
        }
        fixture["probes"] = record_probes(base, TRAVEL_PROBES if name == "travel" else WORKSPACE_PROBES)
        worlds = {}
        for version in PAIR_VERSIONS:
            suite = get_suite(version, name)
            fixture["pairs"][version] = record_pairs(suite)
            fixture["candidates"][version], fixture["attacks"][version] = record_injections(suite, worlds)
        out = json.dumps(fixture, ensure_ascii=False, indent=None, separators=(",", ":"), sort_keys=True)
        path = os.path.join(root, "plugins", "shims", "agentdojo", name, "fidelity.fixture.json.gz")
        if write:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(gzip.compress((out + "\n").encode("utf-8"), mtime=0))
        print(name, "classes", len(classes), "pairs", sum(len(p) for p in fixture["pairs"].values()),
              "attack cases", sum(len(r) for v in fixture["attacks"].values() for r in v.values()),
              "injected worlds", len(worlds), "bytes", len(out), "->", path if write else "(dry)")


if __name__ == "__main__":
    main("--write" in sys.argv)
