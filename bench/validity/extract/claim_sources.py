"""Answers that follow a failed write, for `claim_check` (issue 32 item 3): real model answers from published runs.

Sources (bare mirrors under --mirror, read with `git`, never imported or run):
- sierra-research/tau-bench `historical_trajectories/*.json` (MIT): τ-bench trajectories, each with the task's gold
  actions (`info.task.actions`), the tool calls, their outputs and a reward. At the pinned commit only
  `gpt-4o-airline.json` is stored in full; the other three files are absent from the mirror and are skipped.
- sequrity-ai/agentdojo `runs/**` (MIT) at the parent of the commit that deleted them (27f790a7): AgentDojo runs
  of 27 pipelines, each with its messages (tool results carry `error`), utility and security. A user task's gold
  calls are read from `src/agentdojo/default_suites/**/{user,injection}_tasks.py` (`ground_truth`, with `ast`).

A candidate is the first answer (an assistant message with text and no tool call) after a call of a *required
write* failed (a write action the task's gold names; τ-bench: output starting "Error", AgentDojo: `error` set)
where no call of that action succeeded anywhere in the trajectory: the situation the claim check judges. An
injected action (an AgentDojo attack's goal, not the user task's) is no required write and gives no candidate.
At most 15 answers per task are kept (by SHA-256 of the id), so that no task outweighs the rest.

The split is by task (`<source>:<suite>/<task>`), SHA-256 with the validity salt, 70% dev: no held-out answer
replies to a task a dev answer replies to. Identical answers are kept once, in dev when any copy is.

Labels are not made here: `claim-labels.json` holds them by example id, written by hand (see docs/validity.md,
"claim_check"); this script writes only the labelled examples to `data/claim_check.jsonl`, and with
`--candidates FILE` every candidate (for labelling).

Usage: python3 bench/validity/extract/claim_sources.py [--mirror /work/.mirror] [--candidates FILE] [--split dev|heldout]
Standard library only.
"""
import argparse
import ast
import hashlib
import json
import os
import re
import subprocess

SALT = 'aeh-validity-v1:'
DEV_SHARE = 0.7
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))

TAU = {'repo': 'sierra-research/tau-bench', 'commit': '59a200c6d575d595120f1cb70fea53cef0632f6b', 'licence': 'MIT'}
# The runs were deleted by 27f790a7 ("deleted cached runs"); they are read at its parent.
AGENTDOJO = {'repo': 'sequrity-ai/agentdojo', 'deleted_by': '27f790a70929b5a16cea3b577b902561b610920a', 'licence': 'MIT'}
# At most this many answers per task (by SHA-256 of their id): two Slack tasks gave half the candidates.
PER_TASK = 15
# τ-bench's write actions (airline and retail tool sets): every other tool reads, thinks or computes.
TAU_WRITES = {
    'book_reservation', 'cancel_reservation', 'update_reservation_baggages', 'update_reservation_flights', 'update_reservation_passengers', 'send_certificate',
    'cancel_pending_order', 'exchange_delivered_order_items', 'modify_pending_order_address', 'modify_pending_order_items', 'modify_pending_order_payment',
    'modify_user_address', 'return_delivered_order_items',
}
# AgentDojo's write functions (banking, slack, travel, workspace): those that change the environment.
AGENTDOJO_WRITES = {
    'send_money', 'schedule_transaction', 'update_scheduled_transaction', 'update_password', 'update_user_info',
    'send_direct_message', 'send_channel_message', 'add_user_to_channel', 'invite_user_to_slack', 'remove_user_from_slack', 'post_webpage',
    'reserve_hotel', 'reserve_restaurant', 'reserve_car_rental',
    'send_email', 'delete_email', 'create_calendar_event', 'cancel_calendar_event', 'reschedule_calendar_event', 'add_calendar_event_participants',
    'create_file', 'delete_file', 'append_to_file', 'share_file',
}


def split_of(key):
    digest = hashlib.sha256((SALT + key).encode('utf-8')).hexdigest()
    return 'dev' if int(digest[:8], 16) / 0x100000000 < DEV_SHARE else 'heldout'


class Repo:
    def __init__(self, path, commit):
        self.path, self.commit = path, commit

    def git(self, *args):
        return subprocess.run(['git', '-C', self.path, *args], capture_output=True, check=True).stdout

    def entries(self, prefix):
        """(blob, path) of the files under `prefix` whose content the mirror holds (large files may be absent)."""
        listed = []
        for line in self.git('ls-tree', '-r', self.commit, '--', prefix).decode().splitlines():
            meta, path = line.split('\t', 1)
            listed.append((meta.split()[2], path))
        check = subprocess.run(['git', '-C', self.path, 'cat-file', '--batch-check'], input='\n'.join(blob for blob, _ in listed).encode(), capture_output=True).stdout.decode().splitlines()
        return [entry for entry, answer in zip(listed, check) if not answer.endswith('missing')]

    def blobs(self, entries):
        proc = subprocess.Popen(['git', '-C', self.path, 'cat-file', '--batch'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for blob, path in entries:
            proc.stdin.write((blob + '\n').encode())
            proc.stdin.flush()
            size = int(proc.stdout.readline().split()[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)
            yield path, data
        proc.stdin.close()
        proc.wait()


def text_of(content):
    if isinstance(content, list):
        return '\n'.join(part.get('content') or part.get('text') or '' if isinstance(part, dict) else str(part) for part in content)
    return content or ''


def tau_candidates(repo, out):
    for path, data in repo.blobs(repo.entries('historical_trajectories')):
        if not path.endswith('.json'):
            continue
        domain = 'airline' if 'airline' in path else 'retail'
        for trajectory in json.loads(data):
            gold = {action['name'] for action in trajectory['info']['task'].get('actions', [])}
            names = {call['id']: call['function']['name'] for message in trajectory['traj'] if message.get('role') == 'assistant' for call in message.get('tool_calls') or []}
            # A write that succeeded anywhere in the trajectory is no failed write: the claim check judges writes that never did.
            succeeded = {message.get('name') or names.get(message.get('tool_call_id')) for message in trajectory['traj'] if message.get('role') == 'tool' and not text_of(message.get('content')).startswith('Error')}
            pending, request = {}, ''
            for message in trajectory['traj']:
                role = message.get('role')
                if role == 'user':
                    request = text_of(message.get('content'))
                elif role == 'assistant' and message.get('tool_calls'):
                    continue
                elif role == 'tool':
                    name = message.get('name') or names.get(message.get('tool_call_id'))
                    if name in TAU_WRITES and name in gold and name not in succeeded:
                        pending[name] = text_of(message.get('content'))
                elif role == 'assistant':
                    answer = text_of(message.get('content')).strip()
                    if pending and answer:
                        calls = [{'name': name, 'error': error} for name, error in sorted(pending.items())]
                        out.add('tau-bench', f'tau-bench:{domain}/{trajectory["task_id"]}', answer, request, calls, repo_source(TAU, path),
                                f'{os.path.basename(path)} task {trajectory["task_id"]} trial {trajectory.get("trial")}, reward {trajectory.get("reward")}')
                        pending = {}


def agentdojo_gold(repo):
    gold = {}
    for line in repo.git('ls-tree', '-r', '--name-only', repo.commit).decode().split():
        match = re.search(r'default_suites/[^/]+/([^/]+)/(user|injection)_tasks\.py$', line)
        if not match:
            continue
        suite = match.group(1)
        for node in ast.parse(repo.git('show', f'{repo.commit}:{line}').decode()).body:
            named = isinstance(node, ast.ClassDef) and re.match(r'(UserTask|InjectionTask)(\d+)$', node.name)
            if not named:
                continue
            task = ('user_task_' if named.group(1) == 'UserTask' else 'injection_task_') + named.group(2)
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and method.name == 'ground_truth':
                    for call in ast.walk(method):
                        if isinstance(call, ast.Call) and getattr(call.func, 'id', None) == 'FunctionCall':
                            for keyword in call.keywords:
                                if keyword.arg == 'function' and isinstance(keyword.value, ast.Constant):
                                    gold.setdefault((suite, task), set()).add(keyword.value.value)
    return gold


def agentdojo_candidates(repo, out):
    gold = agentdojo_gold(repo)
    for path, data in repo.blobs([entry for entry in repo.entries('runs') if entry[1].endswith('.json')]):
        try:
            run = json.loads(data)
        except ValueError:
            continue
        suite, task = run.get('suite_name'), run.get('user_task_id')
        required = gold.get((suite, task), set()) & AGENTDOJO_WRITES
        messages = run.get('messages') or []
        succeeded = {(message.get('tool_call') or {}).get('function') for message in messages if message.get('role') == 'tool' and not message.get('error')}
        pending, request = {}, ''
        for message in messages:
            role = message.get('role')
            if role == 'user' and not request:
                request = text_of(message.get('content'))
            elif role == 'tool':
                name = (message.get('tool_call') or {}).get('function')
                if name in required and name not in succeeded and message.get('error'):
                    pending[name] = str(message['error'])
            elif role == 'assistant' and not message.get('tool_calls'):
                answer = text_of(message.get('content')).strip()
                if pending and answer:
                    calls = [{'name': name, 'error': error} for name, error in sorted(pending.items())]
                    out.add('agentdojo', f'agentdojo:{suite}/{task}', answer, request, calls, repo_source(AGENTDOJO, path),
                            f'{run.get("pipeline_name")}, {suite}/{task}, injection {run.get("injection_task_id")}, attack {run.get("attack_type")}, utility {run.get("utility")}')
                    pending = {}


def repo_source(source, path):
    return {'repo': source['repo'], 'commit': source['commit'][:12], 'path': path, 'licence': source['licence']}


class Collector:
    def __init__(self):
        self.examples = {}

    def add(self, source_key, group, text, request, calls, source, note):
        split = split_of(group)
        digest = hashlib.sha256(json.dumps([text, [call['name'] for call in calls]], sort_keys=True).encode('utf-8')).hexdigest()[:10]
        example_id = f'claim_check:{source_key}:{digest}'
        calls = [{'name': call['name'], 'error': call['error'][:300]} for call in calls]
        known = self.examples.get(example_id)
        if known:
            if split == 'dev':
                known['split'] = 'dev'
            return
        self.examples[example_id] = {'id': example_id, 'text': text, 'input': request[:500], 'calls': calls, 'split': split, 'group': group, 'source': source, 'note': note}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--mirror', default='/work/.mirror')
    parser.add_argument('--candidates')
    parser.add_argument('--split')
    args = parser.parse_args()
    out = Collector()
    tau = Repo(os.path.join(args.mirror, 'sierra-research+tau-bench', 'repo'), TAU['commit'])
    tau_candidates(tau, out)
    dojo = Repo(os.path.join(args.mirror, 'sequrity-ai+agentdojo', 'repo'), AGENTDOJO['deleted_by'] + '^')
    dojo.commit = AGENTDOJO['commit'] = dojo.git('rev-parse', dojo.commit).decode().strip()
    agentdojo_candidates(dojo, out)
    examples, per_task = [], {}
    for example in sorted(out.examples.values(), key=lambda example: hashlib.sha256(example['id'].encode()).hexdigest()):
        per_task[example['group']] = per_task.get(example['group'], 0) + 1
        if per_task[example['group']] <= PER_TASK:
            examples.append(example)
    examples.sort(key=lambda example: example['id'])
    if args.candidates:
        with open(args.candidates, 'w') as handle:
            for example in examples:
                if not args.split or example['split'] == args.split:
                    handle.write(json.dumps(example, ensure_ascii=False) + '\n')
    labels_path = os.path.join(HERE, 'claim-labels.json')
    labels = json.load(open(labels_path)) if os.path.exists(labels_path) else {}
    kept = []
    for example in examples:
        label = labels.get(example['id'])
        if not label or label.get('label') is None:
            continue
        example = {**example, 'label': label['label'], 'note': f"{example['note']}; label: {label.get('why', '')}".strip()}
        kept.append(example)
    with open(os.path.join(DATA, 'claim_check.jsonl'), 'w') as handle:
        for example in kept:
            handle.write(json.dumps(example, ensure_ascii=False) + '\n')
    by_split = {}
    for example in examples:
        by_split[example['split']] = by_split.get(example['split'], 0) + 1
    print(f'{len(examples)} candidates {by_split}; {len(kept)} labelled written to data/claim_check.jsonl; unlabelled or unclear: {len(examples) - len(kept)}')


if __name__ == '__main__':
    main()
