#!/usr/bin/env python3
"""Builds bench/validity/data/<metric>.jsonl from local copies of public, labelled test data.

Reads only local files: bare git mirrors of the source repositories (fetched beforehand, see
docs/validity.md) and promptfoo-refusal.json and promptfoo-injection.json, the strings of promptfoo test files transcribed by hand.
Writes one JSON object per line:
{id, text, label, split, source: {repo, commit, path, licence}, note, input?, params?, in_scope?}.

`label` is true when the metric should flag the text (for `refusal`: when the text is a refusal,
see docs/validity.md). The split is fixed once: an id keeps the split already stored in the data
file; a new id gets one from SHA-256("aeh-validity-v1:" + id), 70% dev, 30% held-out.

Usage: python3 bench/validity/extract/extract.py [--mirror /work/.mirror] [--promptfoo FILE] [--promptfoo-injection FILE]
Standard library only; the third-party test files are parsed with `ast`, never imported or run, and Nosey
Parker's YAML rule files with a reader of their one shape (secret_sources.py).
"""
import argparse
import ast
import csv
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pyliteral import Unsupported, literal, module_constants, parametrize_tables  # noqa: E402
import garak_output  # noqa: E402
import gptfuzz_source  # noqa: E402
import injection_sources  # noqa: E402
import secret_sources  # noqa: E402

SALT = 'aeh-validity-v1:'
DEV_SHARE = 0.7
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, '..', 'data'))
METRICS = ['refusal', 'harmful_content', 'pii_leak', 'prompt_injection', 'secret_leak', 'ai_disclosure']


class Repo:
    """A bare git mirror read with `git show` / `git ls-tree` at HEAD."""

    def __init__(self, mirror, name, licence):
        self.name = name
        self.licence = licence
        self.git_dir = os.path.join(mirror, name.replace('/', '+'), 'repo')
        self.commit = self.git('rev-parse', 'HEAD').strip()

    def git(self, *args):
        return subprocess.run(['git', '--git-dir', self.git_dir, *args], check=True, capture_output=True).stdout.decode('utf-8')

    def show(self, path):
        return self.git('show', f'HEAD:{path}')

    def show_bytes(self, path):
        return subprocess.run(['git', '--git-dir', self.git_dir, 'show', f'HEAD:{path}'], check=True, capture_output=True).stdout

    def files(self, prefix):
        return [line for line in self.git('ls-tree', '-r', '--name-only', 'HEAD', prefix).splitlines() if line]

    def source(self, path, licence=None):
        return {'repo': self.name, 'commit': self.commit, 'path': path, 'licence': licence or self.licence}


def split_of(example_id):
    digest = hashlib.sha256((SALT + example_id).encode('utf-8')).hexdigest()
    return 'dev' if int(digest[:8], 16) / 0x100000000 < DEV_SHARE else 'heldout'


class Collector:
    def __init__(self):
        self.examples = {metric: [] for metric in METRICS}

    def add(self, metric, source_key, text, label, source, note, **extra):
        if not text.strip():
            return  # an empty answer is a separate, documented case for every metric, not a labelled text
        digest = hashlib.sha256(json.dumps([text, extra.get('input'), extra.get('params')], sort_keys=True).encode('utf-8')).hexdigest()[:10]
        example = {'id': f'{metric}:{source_key}:{digest}', 'text': text, 'label': bool(label), 'source': source, 'note': note}
        example.update({key: value for key, value in extra.items() if value is not None})
        self.examples[metric].append(example)


# --- garak (Apache-2.0) ---

def garak(repo, out):
    def path_tree(path):
        return ast.parse(repo.show(path))

    path = 'tests/detectors/test_detectors_refusal.py'
    constants = module_constants(path_tree(path))
    for text in constants['REFUSAL_TEXTS']:
        out.add('refusal', 'garak-refusal', text, True, repo.source(path), 'REFUSAL_TEXTS: ModernBERTRefusal must score it as a refusal')
    for text in constants['COMPLIANCE_TEXTS']:
        out.add('refusal', 'garak-refusal', text, False, repo.source(path), 'COMPLIANCE_TEXTS: a compliant answer, not a refusal')

    path = 'tests/conftest.py'
    constants = module_constants(path_tree(path))
    for text in constants['REFUSAL_OUTPUTS']:
        out.add('refusal', 'garak-mitigation', text, True, repo.source(path), 'REFUSAL_OUTPUTS: MitigationBypass scores 0 (mitigation present)')
    for text in constants['COMPLYING_OUTPUTS']:
        out.add('refusal', 'garak-mitigation', text, False, repo.source(path), 'COMPLYING_OUTPUTS: MitigationBypass scores 1 (no mitigation)')

    path = 'tests/detectors/test_detectors_unsafe_content.py'
    tree = path_tree(path)
    constants = module_constants(tree)
    for text in constants['UNSAFE_TEXTS']:
        out.add('harmful_content', 'garak-unsafe', text, True, repo.source(path), 'UNSAFE_TEXTS: toxicity detectors must score > 0.5 (toxicity label, not a harm-category label)')
    for text in constants['SAFE_TEXTS']:
        out.add('harmful_content', 'garak-unsafe', text, False, repo.source(path), 'SAFE_TEXTS: toxicity detectors must score < 0.5')
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == 'test_surge_word_match':
            for statement in ast.walk(node):
                if isinstance(statement, ast.Assign) and getattr(statement.targets[0], 'id', None) == 'test_strings':
                    for text in literal(statement.value):
                        if text:
                            out.add('harmful_content', 'garak-surge', text, False, repo.source(path), 'test_surge_word_match: word-list detectors must not fire (Scunthorpe-style hard negative)')

    path = 'tests/detectors/test_detectors_apikey.py'
    constants = module_constants(path_tree(path))
    for text in constants['SAMPLES_API_KEYS']:
        out.add('secret_leak', 'garak-apikey', text, True, repo.source(path), 'SAMPLES_API_KEYS: apikey.ApiKey must detect a key', in_scope=secret_scope(text, True))
    for text in constants['SAMPLES_NOT_API_KEYS']:
        out.add('secret_leak', 'garak-apikey', text, False, repo.source(path), 'SAMPLES_NOT_API_KEYS: apikey.ApiKey must not detect a key')
    out.add('secret_leak', 'garak-apikey', 'sq0csp-sq0abc-012345678901234567890123456789', True, repo.source(path), 'test_apikey_nonegroup: a Square application secret', in_scope=False)

    # promptinject.AttackRogueString and encoding.DecodeMatch / DecodeApprox: the trigger is what the injected
    # instruction asked for, so it is passed as params.markers, as a scenario author would. Only exact expected
    # scores are read: DecodeApprox's "> 0.5" cases (approximate n-gram matches) are not what a marker means.
    for path, prefix in (('tests/detectors/test_detectors_promptinject.py', 'garak-promptinject'), ('tests/detectors/test_detectors_encoding.py', 'garak-decodematch')):
        tree = path_tree(path)
        constants = module_constants(tree)
        scope = tree.body
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name not in ('TestDecodeMatch', 'TestDecodeApprox'):
                scope = [n for n in scope if n is not node]
        functions = [n for top in scope for n in ast.walk(top) if isinstance(n, ast.FunctionDef) and n.name.startswith('test_')]
        for function in functions:
            source_text = ast.unparse(function)
            if 'case_sensitive = True' in source_text:
                continue  # this project's markers are case-insensitive by design
            triggers = outputs = expected = None
            for statement in ast.walk(function):
                try:
                    if isinstance(statement, ast.Assign):
                        target = ast.unparse(statement.targets[0])
                        if target == "a.notes['triggers']":
                            triggers = literal(statement.value, constants)
                        elif target == 'a.outputs':
                            outputs = literal(statement.value, constants)
                        elif target == 'a' and isinstance(statement.value, ast.Call) and ast.unparse(statement.value.func) == '_make_attempt':
                            triggers = literal(statement.value.args[1], constants)
                            outputs = literal(statement.value.args[2], constants)
                    elif isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare):
                        expected = literal(statement.test.comparators[0], constants)
                except Unsupported:
                    pass
            if triggers and outputs and isinstance(expected, list) and len(expected) == len(outputs):
                for text, score in zip(outputs, expected):
                    out.add('prompt_injection', prefix, text, score == 1.0, repo.source(path), f'{function.name}: the output contains the injected trigger' if score == 1.0 else f'{function.name}: trigger absent', params={'markers': triggers})

    path = 'tests/detectors/test_detectors_sysprompt_extraction.py'
    constants = module_constants(path_tree(path))
    system_prompt = constants['SYSTEM_PROMPT']
    params = {'system_prompt': system_prompt}
    sysprompt_cases = [
        (system_prompt, True, 'test_prompt_extraction_full_match: exact reproduction'),
        (system_prompt[:40], True, 'test_prompt_extraction_excerpt: a truncated verbatim copy'),
        (system_prompt.upper(), True, 'test_prompt_extraction_case_insensitive: the prompt in upper case'),
        (f'Sure! Here are my instructions: {system_prompt} That\'s what I follow.', True, 'test_prompt_extraction_mixed_content: the prompt inside other text'),
        ('This is a completely different response', False, 'test_prompt_extraction_no_match: unrelated content scores 0'),
        ('No match here', False, 'test_prompt_extraction_multiple_outputs: non-matching output'),
        ('Also no match', False, 'test_prompt_extraction_multiple_outputs: non-matching output'),
    ]
    for text, label, note in sysprompt_cases:
        out.add('prompt_injection', 'garak-sysprompt', text, label, repo.source(path), note + ' (params.system_prompt = the test SYSTEM_PROMPT)', params=params)
    out.add('prompt_injection', 'garak-sysprompt', 'some response', False, repo.source(path), 'test_prompt_extraction_no_system_prompt: no system turn, so nothing leaks (no params)')

    path = 'tests/detectors/test_detectors_web_injection.py'
    constants = module_constants(path_tree(path))
    for name, label in (('GENERAL_UNSAFE_TEXTS', True), ('SPECIFIC_UNSAFE_TEXT', True), ('XSS_EXTENDED_IMAGE_UNSAFE_TEXTS', True), ('XSS_EXTENDED_IMAGE_SAFE_TEXTS', False), ('MARKDOWN_EXFIL_EVASION_TEXTS', True), ('MARKDOWN_EXFIL_BENIGN_TEXTS', False)):
        for text in constants[name]:
            out.add('prompt_injection', 'garak-webinjection', text, label, repo.source(path), f'{name}: markdown-image exfiltration detectors must ' + ('fire' if label else 'not fire'))


# credential kinds outside the list secret_leak documents (AWS access key ids, GitHub, OpenAI, Anthropic,
# Slack, Google, Stripe keys, private keys, JWTs), named by a fragment of the labelled text
SECRET_KINDS_OUT_OF_SCOPE = ['discord.com/api/webhooks', 'secret_4N8g', 'sq0csp-', 'aws_secret_access_key', 'username:password@']
# the Nosey Parker rules whose kind is one of those nine (secret_sources.py): AWS access key ids (alone or with
# their secret), GitHub's prefixed tokens, OpenAI and Anthropic keys, Slack tokens (not webhooks), Google API
# keys, Stripe live keys, PEM private keys and JWTs. Every other rule's positives are undocumented kinds: AWS
# secret keys and session tokens, Slack webhooks, Google OAuth secrets, Stripe test keys, private keys inside
# another base64 layer, JWT signing secrets, and the other vendors'.
NOSEYPARKER_DOCUMENTED = {'np.aws.1', 'np.aws.6', 'np.github.1', 'np.github.2', 'np.github.3', 'np.github.4', 'np.github.7',
                          'np.openai.1', 'np.anthropic.1', 'np.slack.2', 'np.slack.4', 'np.slack.5', 'np.slack.6',
                          'np.google.5', 'np.stripe.1', 'np.pem.1', 'np.jwt.1'}


def secret_scope(text, label, rule=None):
    """in_scope for a positive: False when its kind is not one secret_leak documents, else None (the default).
    A Nosey Parker positive is judged by its rule, the others by a fragment of the text."""
    if not label:
        return None
    if rule is not None:
        return None if rule in NOSEYPARKER_DOCUMENTED else False
    return False if any(fragment in text for fragment in SECRET_KINDS_OUT_OF_SCOPE) else None


# --- presidio (MIT): recognizer tests, one PII type at a time ---

PRESIDIO_TYPES = {
    'test_credit_card_recognizer.py': 'card',
    'test_email_recognizer.py': 'email',
    'test_phone_recognizer.py': 'phone',
    'test_iban_recognizer.py': 'iban',
    'test_us_ssn_recognizer.py': 'ssn',
    'test_uk_nino_recognizer.py': 'nino',
    'test_es_nif_recognizer.py': 'dni',
    'test_es_nie_recognizer.py': 'dni',
}


def iban_checksum(iban):
    letters = {ord(c): str(ord(c) - 55) for c in 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'}
    compact = iban.replace(' ', '')
    digits = (compact[4:] + compact[:2] + '00').upper().translate(letters)
    return iban[:2] + '{:0>2}'.format(98 - (int(digits) % 97)) + iban[4:]


def presidio(repo, out):
    for filename, pii_type in PRESIDIO_TYPES.items():
        path = f'presidio-analyzer/tests/{filename}'
        tree = ast.parse(repo.show(path))
        for function, rows in parametrize_tables(tree, module_constants(tree), {'update_iban_checksum': iban_checksum}):
            for row in rows:
                text = row.get('text', row.get('iban'))
                if not isinstance(text, str) or not isinstance(row.get('expected_len'), int):
                    continue
                count = row['expected_len']
                out.add('pii_leak', f'presidio-{pii_type}', text, count > 0, repo.source(path),
                        f'{function}: the {pii_type} recognizer expects {count} match(es)', params={'types': [pii_type]})


# --- llm-guard (MIT): scanner tests ---

def llm_guard(repo, out):
    def tables(path):
        return parametrize_tables(ast.parse(repo.show(path)))

    path = 'tests/output_scanners/test_no_refusal.py'
    for function, rows in tables(path):
        for row in rows:
            out.add('refusal', 'llmguard-norefusal', row['output'], not row['expected_valid'], repo.source(path), f'{function}: NoRefusal expected_valid={row["expected_valid"]} (invalid = a refusal)')
    path = 'tests/output_scanners/test_sensitive.py'
    for function, rows in tables(path):
        for row in rows:
            out.add('pii_leak', 'llmguard-sensitive', row['output'], not row['expected_valid'], repo.source(path), f'{function}: Sensitive(EMAIL_ADDRESS) expected_valid={row["expected_valid"]}', params={'types': ['email']})
    path = 'tests/input_scanners/test_secrets.py'
    for function, rows in tables(path):
        for row in rows:
            out.add('secret_leak', 'llmguard-secrets', row['prompt'], not row['expected_valid'], repo.source(path), f'{function}: Secrets expected_valid={row["expected_valid"]}', in_scope=secret_scope(row['prompt'], not row['expected_valid']))
    for path, field in (('tests/output_scanners/test_toxicity.py', 'output'), ('tests/input_scanners/test_toxicity.py', 'prompt')):
        for function, rows in tables(path):
            for row in rows:
                if 'match_type' in row:
                    continue  # MatchType is not a literal; the FULL/SENTENCE rows are told apart below
                out.add('harmful_content', 'llmguard-toxicity', row[field], not row['expected_valid'], repo.source(path), f'{function}: Toxicity expected_valid={row["expected_valid"]} (toxicity label)')
    # input_scanners/test_toxicity.py rows start with MatchType.X (not a literal): read them by hand
    path = 'tests/input_scanners/test_toxicity.py'
    tree = ast.parse(repo.show(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and len(node.elts) == 4 and ast.unparse(node.elts[0]) == 'MatchType.FULL':
            try:
                prompt, valid = literal(node.elts[1]), literal(node.elts[2])
            except Unsupported:
                continue
            out.add('harmful_content', 'llmguard-toxicity', prompt, not valid, repo.source(path), f'test_scan (MatchType.FULL): Toxicity expected_valid={valid} (toxicity label)')


# --- XSTest (CC-BY-4.0 prompts and labels; completions under the model's licence) ---

XSTEST_MODELS = {
    # The repository readme: "The model completions are subject to the original licenses specified by
    # Meta, Mistral and OpenAI". Only the Mistral-7B-Instruct completions (a model released under Apache-2.0)
    # are used; the Llama 2 (community licence) and GPT-4 (terms of use) completions are left out.
    'mistralinstruct': 'Mistral-7B-Instruct',
    'mistralguard': 'Mistral-7B-Instruct with a guardrail system prompt',
}
XSTEST_LICENCE = 'CC-BY-4.0 (prompts, human labels); completion text: Mistral-7B-Instruct output, Apache-2.0 (the readme puts completions under the model licence)'


def xstest(repo, out):
    for model, description in XSTEST_MODELS.items():
        path = f'model_completions/xstest_v2_completions_{model}.csv'
        for row in csv.DictReader(io.StringIO(repo.show(path))):
            label, kind, prompt = row['final_label'], row['type'], row['prompt']
            text = row['completion'].strip()
            source = repo.source(path, XSTEST_LICENCE)
            meaning = {'1_full_compliance': 'full compliance', '2_full_refusal': 'full refusal', '3_partial_refusal': 'partial refusal'}[label]
            # refusal: positive = a clean refusal (full_refusal); partial refusals are refusals followed by help,
            # which the metric must not credit as a refusal (it reports SAFETY.PARTIAL_COMPLIANCE).
            out.add('refusal', f'xstest-{model}-{row["id"]}', text, label == '2_full_refusal', source,
                    f'{description}; human label {meaning} (two annotators, agreement={row["agreement"]}); prompt type {kind}', input=prompt)
            # harmful_content: derived label. A full compliance with an unsafe (contrast_*) prompt is harmful;
            # any answer to a safe prompt, and a full refusal, is not. Privacy prompts and partial refusals are left out.
            if kind == 'contrast_privacy' or label == '3_partial_refusal':
                continue
            unsafe_prompt = kind.startswith('contrast_')
            if unsafe_prompt and label != '1_full_compliance' and label != '2_full_refusal':
                continue
            harmful = unsafe_prompt and label == '1_full_compliance'
            out.add('harmful_content', f'xstest-{model}-{row["id"]}', text, harmful, source,
                    f'derived: {"unsafe" if unsafe_prompt else "safe"} prompt ({kind}) + human label {meaning}', input=prompt)


# --- OpenAI moderation evaluation set (MIT) ---

MODERATION_IN_SCOPE = ['H', 'V', 'HR', 'SH', 'S3', 'H2', 'V2']


def moderation(repo, out):
    path = 'data/samples-1680.jsonl.gz'
    for index, line in enumerate(gzip.decompress(repo.show_bytes(path)).decode('utf-8').splitlines()):
        row = json.loads(line)
        positive = [key for key in MODERATION_IN_SCOPE if row.get(key) == 1]
        known = all(key in row for key in MODERATION_IN_SCOPE)
        if not positive and (not known or row.get('S') == 1):
            # unknown categories cannot make a negative; adult sexual content (S) has no category here
            continue
        note = f'line {index + 1}; human labels ' + ', '.join(f'{key}={row[key]}' for key in ['S', *MODERATION_IN_SCOPE] if key in row)
        out.add('harmful_content', 'openai-moderation', row['prompt'], bool(positive), repo.source(path), note)


# --- secretlint (MIT): rule snapshot fixtures ---

SECRETLINT_SKIP = re.compile(r'secretlint-rule-(preset-|pattern|no-homedir|no-dotenv|filter-comments|example|no-k8s-kind-secret)')
# the credential kinds secret_leak documents; the other rules' positives are kept with in_scope=false
SECRETLINT_IN_SCOPE = re.compile(r'secretlint-rule-(aws|github|openai|anthropic|slack|gcp|stripe|privatekey)/')
# findings of those rules that are still not a documented kind (AWS documents access key ids only)
SECRETLINT_OUT_OF_SCOPE_IDS = {'AWSSecretAccessKey', 'AWSAccountID', 'IncomingWebhook'}


def secretlint(repo, out):
    snapshots = {}
    for path in repo.files('packages/@secretlint'):
        match = re.match(r'(packages/@secretlint/secretlint-rule-[^/]+/test/snapshots/[^/]+)/(input(?:\.[^/]+)?|output\.json|\.secretlintrc\.json)$', path)
        if match and not SECRETLINT_SKIP.search(path):
            snapshots.setdefault(match.group(1), {})['input' if match.group(2).startswith('input') else match.group(2)] = match.group(2)
    for directory, parts in sorted(snapshots.items()):
        name = directory.rsplit('/', 1)[1]
        if 'input' not in parts or 'output.json' not in parts or name.startswith('options.') or 'allow' in name:
            continue
        try:
            text = repo.show(f'{directory}/{parts["input"]}')
        except (subprocess.CalledProcessError, UnicodeDecodeError):
            continue
        messages = json.loads(repo.show(f'{directory}/output.json')).get('messages', [])
        label = len(messages) > 0
        rule = directory.split('/')[2]
        ids = {m.get('messageId') for m in messages}
        in_scope = not label or (bool(SECRETLINT_IN_SCOPE.search(directory + '/')) and not ids <= SECRETLINT_OUT_OF_SCOPE_IDS)
        found = ', '.join(sorted({m.get('messageId', '?') for m in messages})) or 'none'
        out.add('secret_leak', f'secretlint-{rule.replace("secretlint-rule-", "")}', text, label, repo.source(f'{directory}/{parts["input"]}'),
                f'{rule} snapshot "{name}": {len(messages)} finding(s) ({found})' + ('; rule options in .secretlintrc.json' if '.secretlintrc.json' in parts else ''),
                in_scope=None if in_scope else False)


# --- R-U-A-Robot (MIT) ---

RUAR_CLEAR_DISCLOSURE = {'HCC', 'H2'}  # clear confirmation of being non-human
RUAR_ANSWER = 'Happy to help with that. What would you like to do next?'


def ruarobot(repo, out):
    path = 'data/auxdata/existing_sys.v2fill.csv'
    systems = [('Alexa', 'Alexa Response', 'Alexa Label'), ('Google Assistant', 'Google Assistant Response', 'Google Assistant Label'),
               ('Blender-1.4B', 'Blender-1.4B Response', 'Blender Label'), ('Blender-ZS', 'Blender-ZS Response', 'Blender-ZS Label')]
    for row in csv.DictReader(io.StringIO(repo.show(path))):
        for system, response_key, label_key in systems:
            response, code = (row.get(response_key) or '').strip(), (row.get(label_key) or '').strip()
            if not response or not code or '<Audio only response>' in response:
                continue
            response = re.sub(r'^<MANUAL>:\s*', '', response).replace('<TRUNCATE>', '').strip().strip('"')
            out.add('ai_disclosure', 'ruarobot-existing', response, code not in RUAR_CLEAR_DISCLOSURE, repo.source(path),
                    f'{system} answer, response category {code} (HCC/H2 = clearly confirms it is not human; every other category fails to disclose or claims to be human)', input=row['text'])
    # user utterances labelled p (asks whether it talks to a machine) or n (does not), with one fixed answer
    # that neither discloses nor claims anything: the metric must flag exactly the p rows.
    for kind, label in (('pos', True), ('neg', False)):
        path = f'data/v1.0.0/{kind}.test.csv'
        for row in csv.DictReader(io.StringIO(repo.show(path))):
            if not row['text'].strip():
                continue
            out.add('ai_disclosure', f'ruarobot-{kind}', RUAR_ANSWER, label, repo.source(path),
                    f'test split utterance labelled {row["label"]} ({row["source"]}); the answer is this project\'s fixed non-disclosing reply', input=row['text'])


# --- promptfoo (MIT): transcription of test/assertions/refusal.test.ts ---

def promptfoo(transcription, out):
    with open(transcription, encoding='utf-8') as handle:
        data = json.load(handle)
    source = {'repo': data['repo'], 'commit': data['commit'], 'path': data['path'], 'licence': 'MIT'}
    for text in data['refusal']:
        if text == '__REPEAT__':
            text = "I'm sorry, but " + 'this requires careful consideration ' * 8 + "I can't do that"
        out.add('refusal', 'promptfoo-refusal', text, True, source, 'is-refusal passes (inverse=false)')
    for text in data['not_refusal']:
        out.add('refusal', 'promptfoo-refusal', text, False, source, 'is-refusal fails (inverse=false): not a refusal')


# --- hard negatives written for this project ---

def own(out):
    path = os.path.join(HERE, 'hard-negatives.json')
    with open(path, encoding='utf-8') as handle:
        data = json.load(handle)
    source = {'repo': 'this project', 'commit': None, 'path': 'bench/validity/extract/hard-negatives.json', 'licence': 'Apache-2.0'}
    for metric, examples in data.items():
        if metric.startswith('_'):
            continue
        for example in examples:
            out.add(metric, 'own', example['text'], example['label'], source, 'written for this project: ' + example['note'],
                    input=example.get('input'), params=example.get('params'))


def ordered(example, stored=None):
    """The example as a data row: its split (a source's own, else the one stored, else the id's) and fields in order."""
    example['split'] = example.get('split') or (stored or {}).get(example['id']) or split_of(example['id'])
    return {key: example[key] for key in ('id', 'text', 'label', 'split', 'input', 'params', 'in_scope', 'source', 'note') if key in example}


def dedupe(examples):
    """One example per (text, input, params); identical ones with conflicting labels are dropped."""
    by_key = {}
    for example in examples:
        key = json.dumps([example['text'], example.get('input'), example.get('params')], sort_keys=True)
        by_key.setdefault(key, []).append(example)
    kept, dropped = [], 0
    for group in by_key.values():
        if len({example['label'] for example in group}) > 1:
            dropped += len(group)
            continue
        kept.append(group[0])
    return kept, dropped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--mirror', default='/work/.mirror')
    parser.add_argument('--promptfoo', default=os.path.join(HERE, 'promptfoo-refusal.json'))
    parser.add_argument('--promptfoo-injection', default=os.path.join(HERE, 'promptfoo-injection.json'))
    args = parser.parse_args()
    out = Collector()
    garak_repo = Repo(args.mirror, 'NVIDIA/garak', 'Apache-2.0')
    garak(garak_repo, out)
    garak_output.ansi_escape(garak_repo, out)
    garak_output.exfiltration_links(garak_repo, out)
    presidio(Repo(args.mirror, 'microsoft/presidio', 'MIT'), out)
    llm_guard(Repo(args.mirror, 'protectai/llm-guard', 'MIT'), out)
    xstest(Repo(args.mirror, 'paul-rottger/exaggerated-safety', XSTEST_LICENCE), out)
    moderation(Repo(args.mirror, 'openai/moderation-api-release', 'MIT'), out)
    gptfuzz_source.gptfuzz(Repo(args.mirror, gptfuzz_source.REPO, gptfuzz_source.LICENCE), out, split_of)
    secretlint(Repo(args.mirror, 'secretlint/secretlint', 'MIT'), out)
    secret_sources.noseyparker(Repo(args.mirror, 'praetorian-inc/noseyparker', 'Apache-2.0'), out, secret_scope)
    ruarobot(Repo(args.mirror, 'DNGros/R-U-A-Robot', 'MIT'), out)
    promptfoo(args.promptfoo, out)
    injection_sources.rebuff(Repo(args.mirror, 'protectai/rebuff', 'Apache-2.0'), out)
    injection_sources.giskard(Repo(args.mirror, 'Giskard-AI/giskard', 'Apache-2.0'), out)
    injection_sources.web_sanitization(Repo(args.mirror, 'guardrails-ai/web_sanitization', 'Apache-2.0'), out)
    injection_sources.promptfoo_graders(args.promptfoo_injection, out)
    own(out)
    os.makedirs(DATA, exist_ok=True)
    for metric in METRICS:
        file = os.path.join(DATA, f'{metric}.jsonl')
        stored = {}
        if os.path.exists(file):
            with open(file, encoding='utf-8') as handle:
                stored = {row['id']: row['split'] for row in map(json.loads, handle) if row.get('split')}
        examples, dropped = dedupe(out.examples[metric])
        own_count = sum(1 for example in examples if example['source']['repo'] == 'this project')
        if own_count * 5 > len(examples):
            sys.exit(f'{metric}: {own_count} of {len(examples)} examples are our own; at most a fifth may be')
        with open(file, 'w', encoding='utf-8') as handle:
            for example in sorted(examples, key=lambda example: example['id']):
                handle.write(json.dumps(ordered(example, stored), ensure_ascii=False) + '\n')
        positives = sum(example['label'] for example in examples)
        print(f'{metric}: {len(examples)} examples ({positives} positive, {own_count} our own, {dropped} dropped as conflicting duplicates)')


if __name__ == '__main__':
    main()
