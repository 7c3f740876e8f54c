"""Labelled outputs for `prompt_injection` from tools other than garak: canary-word leak tests (rebuff), an
injected-marker test (giskard), a script-in-output test (guardrails-ai web_sanitization) and the promptfoo
grader tests transcribed in promptfoo-injection.json.

Python test files are read with `ast`, the one TypeScript file with patterns that must each match once;
nothing is imported or run. A reader raises SystemExit when its file no longer has the shape it copies, so
that a changed test is reviewed rather than misread.
"""
import ast
import hashlib
import json
import re

from pyliteral import Unsupported, literal

# rebuff draws a random canary word per call (secrets.token_hex(4), 8 hex digits); a fixed value of that form
# stands in for it, since the label depends only on whether the word is in the completion.
REBUFF_CANARY = hashlib.sha256(b'rebuff canary word').hexdigest()[:8]
REBUFF_NOTE = 'is_canary_word_leaked must be {} (the canary word rebuff planted in the prompt {} the completion; params.system_prompt_canaries = a fixed word of rebuff\'s form)'


def formatted(node, names):
    """An f-string (optionally followed by `.format(**kw)` with literal keywords) with the given names bound."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'format' and not node.args:
        text = formatted(node.func.value, names)
        return text.format(**{keyword.arg: literal(keyword.value, names) for keyword in node.keywords})
    if not isinstance(node, ast.JoinedStr):
        return literal(node, names)
    parts = []
    for value in node.values:
        if isinstance(value, ast.FormattedValue):
            if value.conversion != -1 or value.format_spec is not None:
                raise Unsupported('formatted value with a conversion or a format spec')
            parts.append(str(literal(value.value, names)))
        else:
            parts.append(literal(value, names))
    return ''.join(parts)


def function(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise SystemExit(f'no function {name}: review the reader')


def assigned(node, target):
    """The value nodes assigned to `target` inside `node`, in source order."""
    return [statement.value for statement in ast.walk(node) if isinstance(statement, ast.Assign) and ast.unparse(statement.targets[0]) == target]


def rebuff(repo, out):
    """is_canary_word_leaked tests of the Python and JavaScript SDKs: a completion that contains the canary word
    is a leak, one that does not is not."""
    params = {'system_prompt_canaries': [REBUFF_CANARY]}

    def add(path, text, leaked, user_input, test):
        out.add('prompt_injection', 'rebuff-canary', text, leaked, repo.source(path),
                f'{test}: ' + REBUFF_NOTE.format(*(('True', 'is in') if leaked else ('False', 'is not in'))), input=user_input, params=params)

    path = 'python-sdk/tests/test_sdk.py'
    tree = ast.parse(repo.show(path))
    injections = literal(assigned(function(tree, 'prompt_injection_inputs'), 'pi')[0])
    benign = literal(assigned(function(tree, 'benign_inputs'), 'bi')[0])
    user_inputs = injections + benign
    test = function(tree, 'test_is_canary_word_leaked')
    branch = next(node for node in ast.walk(test) if isinstance(node, ast.If) and ast.unparse(node.test) == 'canary_word_leaked')
    if 'assert leak_detected' not in ast.unparse(branch.body) or 'assert not leak_detected' not in ast.unparse(branch.orelse):
        raise SystemExit(f'{path}: test_is_canary_word_leaked no longer asserts a leak in its first branch only: review the reader')
    for leaked, statements in ((True, branch.body), (False, branch.orelse)):
        template = assigned(ast.Module(body=statements, type_ignores=[]), 'response_completion')[0]
        for user_input in user_inputs:
            text = formatted(template, {'canary_word': REBUFF_CANARY, 'user_input': user_input, 'user_inputs': user_inputs})
            add(path, text, leaked, user_input, 'test_is_canary_word_leaked')

    path = 'python-sdk/tests/test_integration.py'
    tree = ast.parse(repo.show(path))
    for name, leaked in (('test_canary_word_leak', True), ('test_canary_word_leak_no_leak', False)):
        test = function(tree, name)
        if f'assert is_leak_detected is {leaked}' not in ast.unparse(test):
            raise SystemExit(f'{path}: {name} no longer asserts is_leak_detected is {leaked}: review the reader')
        user_input = literal(assigned(test, 'user_input')[0])
        text = formatted(assigned(test, 'response_completion')[0], {'canary_word': REBUFF_CANARY})
        add(path, text, leaked, user_input, name)

    path = 'javascript-sdk/tests/index.test.ts'
    source = repo.show(path)
    section = source[source.index('describe("is_canary_word_leaked"'):source.index('describe("detect_injection_heuristics"')]
    cases = section.split('\n    it(')[1:]
    if len(cases) != 2:
        raise SystemExit(f'{path}: expected two is_canary_word_leaked cases, found {len(cases)}: review the reader')
    for case in cases:
        title = re.match(r'"([^"]+)"', case).group(1)
        user_input = json.loads(re.search(r'const userInput =\s+("(?:[^"\\]|\\.)*");', case).group(1))
        template = re.search(r'const responseCompletion = `([^`$]*(?:\$\{canaryWord\}[^`$]*)*)`;', case).group(1)
        text = template.replace('${canaryWord}', REBUFF_CANARY).replace('\\n', '\n')
        leaked = re.search(r'expect\(isLeakDetected\)\.to\.be\.(true|false);', case).group(1) == 'true'
        add(path, text, leaked, user_input, f'it("{title}")')


def giskard(repo, out):
    """LLMPromptInjectionDetector test: a PromptInject goal-hijacking prompt whose expected string the mocked model
    outputs; the injection test must fail (the output followed the injected instruction)."""
    path = 'tests/scan/llm/test_prompt_injection_detector.py'
    tree = ast.parse(repo.show(path))
    test = function(tree, 'test_detector')
    if 'assert not test_result.passed' not in ast.unparse(test):
        raise SystemExit(f'{path}: test_detector no longer expects the injection test to fail: review the reader')
    table = next(node for node in ast.walk(test) if isinstance(node, ast.Dict) and any(isinstance(key, ast.Constant) and key.value == 'expected_strings' for key in node.keys))
    row = {key.value: literal(value) for key, value in zip(table.keys, table.values) if isinstance(key, ast.Constant) and key.value in ('prompt', 'expected_strings')}
    markers = list(ast.literal_eval(row['expected_strings']))
    for text in literal(assigned(test, 'model.predict(dataset).prediction')[0]):
        # giskard matches case-sensitively here; the output is the expected string itself, so case plays no part
        out.add('prompt_injection', 'giskard-injection', text, True, repo.source(path),
                'test_detector: the output contains the expected string of a PromptInject hijacking prompt, so the injection test fails (params.markers = expected_strings, input = the prompt)',
                input=row['prompt'], params={'markers': markers})


def web_sanitization(repo, out):
    """WebSanitization (bleach) validator test: outputs with a script tag fail, plain text passes."""
    path = 'test/test_validator.py'
    tree = ast.parse(repo.show(path))
    constants = {statement.targets[0].id: literal(statement.value) for statement in tree.body
                 if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)}
    for name, label, expectation in (('test_pass', False, '.validated_output == '), ('test_fail', True, '.validated_output is None')):
        test = function(tree, name)
        if expectation not in ast.unparse(test):
            raise SystemExit(f'{path}: {name} no longer asserts "{expectation}": review the reader')
        for call in ast.walk(test):
            if isinstance(call, ast.Call) and ast.unparse(call.func) == 'guard.parse':
                out.add('prompt_injection', 'guardrails-websanitization', constants[call.args[0].id], label, repo.source(path),
                        f'{name}: the WebSanitization output validator must ' + ('refuse the output (script that a browser would run)' if label else 'pass the output'))


def promptfoo_graders(transcription, out):
    """promptfoo's deterministic red-team grader tests, transcribed by hand (promptfoo-injection.json)."""
    with open(transcription, encoding='utf-8') as handle:
        data = json.load(handle)
    for test_file in data['files']:
        source = {'repo': data['repo'], 'commit': test_file['commit'], 'path': test_file['path'], 'licence': data['licence']}
        for case in test_file['cases']:
            params = {'markers': case['markers']} if case.get('markers') else None
            out.add('prompt_injection', f'promptfoo-{test_file["key"]}', case['text'], case['label'], source, f'{case["test"]}: {case["note"]}', params=params)
