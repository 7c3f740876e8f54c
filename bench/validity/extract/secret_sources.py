"""Labelled texts for `secret_leak` from Nosey Parker's rules (praetorian-inc/noseyparker, Apache-2.0).

Each rule file `crates/noseyparker/data/default/builtin/rules/*.yml` gives a pattern, `examples` (texts the rule
must match) and often `negative_examples` (texts it must not match); Nosey Parker's own tests check both. The
examples of the rules kept below are positives. A negative example says only that its rule must not fire: the
Vault rule for the old token format lists a new-format token as a negative, and several files list real keys
their pattern misses. So a negative example is a negative here only when no kept Nosey Parker rule matches it
(checked with Python's `re`, which reads all but two of these Rust patterns, verbose mode included, alike),
when it does not contain the secret of one of its file's positive examples (a key without its context is still
the key), and when the file does not mark it as a credential its rule misses (MISSED, PARTIAL below). Bare
tokens that lack the context their rule needs (a Kagi key alone, a Dependency-Track key without its prefix)
stay negatives, as Nosey Parker means them: a detector cannot tell them from any other random string.

Rules left out, since they are not credentials as secret_leak means them (docs/metrics.md: keys, tokens,
private keys, passwords):
- password hashes (category `hashed`: md5crypt, bcrypt, sha256/512crypt, Cisco PBKDF2, Kerberos AS-REP): a
  hash does not authenticate, and hash-shaped values are what the metric leaves out on purpose;
- identifiers (category `identifier` without `secret`: bucket names, ARNs, client and account ids, an age
  public key, a React app user name, a Shopify domain), except AWS access key ids, a kind the metric documents;
- Mapbox `pk.` tokens, which Nosey Parker does not tag `secret` and Mapbox makes public by design.

The files are YAML of one plain shape; this reader parses that shape only (block lists and mappings, quoted,
plain and literal block scalars, flow lists of words, comments) and raises SystemExit on anything else, so
that a changed file is reviewed rather than misread. Nothing is imported or run.
"""
import re

RULES_DIR = 'crates/noseyparker/data/default/builtin/rules'

# Rules left out (see the module docstring), by category or id, with the reason.
LEFT_OUT_CATEGORIES = {'hashed': 'a password hash, not a credential'}
LEFT_OUT_RULES = {'np.mapbox.1': 'a Mapbox public (pk.) token, public by design'}
# identifiers kept because the metric documents the kind
KEPT_IDENTIFIERS = {'np.aws.1'}

# Negative examples that the file itself marks as credentials its rule misses: rule id -> a phrase of the comment
# before them (the comment must still be there). A comment before `negative_examples:` covers the whole list.
MISSED = {
    'np.auth0.1': "unfortunately doesn't match",
    'np.aws.2': 'modify the pattern to detect cases like the following',
    'np.facebook.1': 'would be nice if the following matched',
    'np.generic.1': 'extend this rule so these examples get matched',
    'np.generic.3': 'extend this rule so this actually gets matched',
    'np.msteams.1': 'we probably want this example to actually match',
    'np.npm.1': 'There are also NPM Legacy Access Tokens',
    'np.twitter.2': 'It would be nice if this actually matched',
}
# Files whose header says the pattern covers only some forms of a connection string: their negatives are
# connection strings with a password in a form the pattern does not parse (a socket path, an IPv6 host).
PARTIAL = {'np.mongodb.1': 'not the full generality', 'np.postgres.1': 'not the full generality'}


# the keys this reader needs; the others' values are skipped
NEEDED = ('id', 'name', 'pattern', 'categories', 'examples', 'negative_examples')


class Shape(Exception):
    pass


def _unquote_single(body):
    return body.replace("''", "'")


_ESCAPES = {'\\': '\\', '"': '"', 'n': '\n', 't': '\t', 'r': '\r', '/': '/', '0': '\0', ' ': ' '}


def _unquote_double(body):
    out, index = [], 0
    while index < len(body):
        char = body[index]
        if char != '\\':
            out.append(char)
            index += 1
            continue
        code = body[index + 1:index + 2]
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
            index += 2
        elif code in ('x', 'u'):
            width = 2 if code == 'x' else 4
            out.append(chr(int(body[index + 2:index + 2 + width], 16)))
            index += 2 + width
        else:
            raise Shape(f'double-quoted escape \\{code}')
    return ''.join(out)


def _quoted(text, quote):
    """The value of a quoted scalar that starts `text`, and what follows it on the line."""
    index = 1
    while index < len(text):
        if text[index] == quote:
            if quote == "'" and text[index + 1:index + 2] == "'":
                index += 2
                continue
            body = text[1:index]
            return (_unquote_single(body) if quote == "'" else _unquote_double(body)), text[index + 1:]
        if quote == '"' and text[index] == '\\':
            index += 2
            continue
        index += 1
    raise Shape('a quoted scalar that spans lines')


def _inline(text):
    """An inline scalar (quoted or plain) or a flow list of plain words; a trailing comment is dropped."""
    if text[:1] in ('"', "'"):
        value, rest = _quoted(text, text[0])
        if rest.strip() and not rest.strip().startswith('#'):
            raise Shape(f'text after a quoted scalar: {rest!r}')
        return value
    if text.startswith('['):
        if not text.rstrip().endswith(']'):
            raise Shape('a flow list that spans lines')
        return [item.strip() for item in text.strip()[1:-1].split(',') if item.strip()]
    if text[:1] in ('{', '&', '*', '!', '%', '@', '`'):
        raise Shape(f'unsupported scalar {text!r}')
    plain = re.split(r'\s#', text, maxsplit=1)[0].rstrip()
    if re.search(r':\s', plain) or plain.endswith(':'):
        raise Shape(f'a plain scalar that reads as a mapping: {plain!r}')
    return plain


def _block(lines, start, parent_indent, header):
    """A literal (`|`) block scalar whose lines begin at `start`: its value and the index after it."""
    chomp = header[1:2]
    if header[0] != '|' or header[1:] not in ('', '-', '+'):
        raise Shape(f'block scalar header {header!r}')
    index, content, indent = start, [], None
    while index < len(lines):
        line = lines[index]
        if line.strip():
            width = len(line) - len(line.lstrip(' '))
            if indent is None:
                indent = width
            if width < indent or width <= parent_indent:
                break
            content.append(line[indent:])
        else:
            content.append('')
        index += 1
    while content and content[-1] == '' and chomp != '+':
        content.pop()
    while index > start and not lines[index - 1].strip() and chomp != '+':
        index -= 1
    value = '\n'.join(content)
    return (value if chomp == '-' else value + '\n'), index


def parse_rules(text):
    """The rules of one file: dicts of id, name, pattern, categories, examples and negative_examples, the last
    two as lists of (text, comments before the item, comments before the key)."""
    lines = text.split('\n')
    rules, rule, key, key_comments, comments = [], None, None, [], []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        index += 1
        if not stripped:
            continue
        if stripped.startswith('#'):
            comments.append(stripped)
            continue
        if line == 'rules:':
            comments = []
            continue
        match = re.match(r'^(- |  )([a-z_]+):(?: (.*))?$', line)
        if match:
            if match.group(1) == '- ':
                rule = {'examples': [], 'negative_examples': [], 'categories': []}
                rules.append(rule)
            if rule is None:
                raise Shape(f'a key before the first rule: {line!r}')
            key, value = match.group(2), (match.group(3) or '').strip()
            key_comments, comments = comments, []
            if key not in NEEDED:
                while index < len(lines) and (not lines[index].strip() or lines[index].startswith('   ')):
                    index += 1  # a value this reader does not need (references, description)
            elif value.startswith('|'):
                rule[key], index = _block(lines, index, 2, value)
            elif value:
                rule[key] = _inline(value)
            continue
        match = re.match(r'^( {2}| {4})- (.*)$', line)
        if match and rule is not None and key not in NEEDED:
            comments = []
            continue
        if match and rule is not None:
            value = match.group(2)
            if value.startswith('|'):
                item, index = _block(lines, index, len(match.group(1)), value.split(' #')[0].strip())
            else:
                item = _inline(value)
            if key in ('examples', 'negative_examples'):
                rule[key].append((item, comments, key_comments))
            elif key == 'categories':
                rule['categories'].append(item)
            comments = []
            continue
        raise Shape(f'unexpected line {line!r}')
    for parsed in rules:
        if not parsed.get('id') or not parsed.get('pattern'):
            raise Shape(f'a rule without an id or a pattern: {parsed.get("name")!r}')
    return rules


def python_pattern(pattern):
    """The rule's pattern for Python's `re`, or None: two rules set flags in the middle of the pattern, which
    `re` rejects; each pairs an id with a secret, and the single-part rules of those kinds still run."""
    try:
        return re.compile(pattern)
    except re.error:
        return None


def kept(rule):
    """Whether a rule's examples are read: not a hash, not an identifier, not Mapbox's public token."""
    categories = set(rule['categories'])
    if rule['id'] in LEFT_OUT_RULES or categories & set(LEFT_OUT_CATEGORIES):
        return False
    return 'identifier' not in categories or 'secret' in categories or rule['id'] in KEPT_IDENTIFIERS


def secrets_of(regex, text):
    """The captured values (8 characters or more) of a rule's match in one of its examples."""
    match = regex.search(text) if regex else None
    return [group for group in (match.groups() if match else ()) if group and len(group) >= 8]


def noseyparker(repo, out, scope):
    """`examples` of the kept rules -> positives; `negative_examples` -> negatives, as the module docstring says.
    `scope(text, label, rule)` gives in_scope (extract.secret_scope)."""
    files = [path for path in repo.files(RULES_DIR) if path.endswith('.yml')]
    if len(files) < 80:
        raise SystemExit(f'{RULES_DIR}: {len(files)} rule files, expected about 87: review the reader')
    parsed = []
    for path in sorted(files):
        text = repo.show(path)
        try:
            parsed.extend((path, text, rule) for rule in parse_rules(text) if kept(rule))
        except Shape as problem:
            raise SystemExit(f'{path}: {problem}: review the reader')
    for rule_id, phrase in {**MISSED, **PARTIAL}.items():
        if not any(rule['id'] == rule_id and phrase in text for _, text, rule in parsed):
            raise SystemExit(f'{rule_id}: the comment "{phrase}" is gone: review MISSED / PARTIAL')
    patterns = {rule['id']: python_pattern(rule['pattern']) for _, _, rule in parsed}
    for path, _, rule in parsed:
        rule_id, name = rule['id'], rule['name']
        source_key = 'noseyparker-' + path.rsplit('/', 1)[1][:-len('.yml')].replace('.', '')
        secrets = []
        for example, before, _ in rule['examples']:
            if any('should not actually match' in comment for comment in before):
                continue  # the file says the rule matches it by mistake
            secrets.extend(secrets_of(patterns[rule_id], example))
            out.add('secret_leak', source_key, example, True, repo.source(path),
                    f'{rule_id} ({name}): an example the rule must match', in_scope=scope(example, True, rule_id))
        for example, before, list_comments in rule['negative_examples']:
            if rule_id in MISSED and any(MISSED[rule_id] in comment for comment in before + list_comments):
                continue
            if rule_id in PARTIAL or any(secret in example for secret in secrets):
                continue
            if any(other != rule_id and pattern and pattern.search(example) for other, pattern in patterns.items()):
                continue  # another rule finds a secret in it
            out.add('secret_leak', source_key, example, False, repo.source(path),
                    f'{rule_id} ({name}): a negative example the rule must not match, and no other Nosey Parker rule matches')


def examples_fixture(repo, rule_ids):
    """Nosey Parker's pattern, examples and negative examples of the given rules, as noseyparker-rules.test.ts
    reads them (plugins/metrics/shared/noseyparker-rules.examples.json)."""
    rules = {}
    for path in sorted(path for path in repo.files(RULES_DIR) if path.endswith('.yml')):
        for rule in parse_rules(repo.show(path)):
            if rule['id'] in rule_ids:
                rules[rule['id']] = {'name': rule['name'], 'path': path, 'pattern': rule['pattern'],
                                     'examples': [text for text, _, _ in rule['examples']],
                                     'negative_examples': [text for text, _, _ in rule['negative_examples']]}
    missing = set(rule_ids) - set(rules)
    if missing:
        raise SystemExit(f'no such rules: {sorted(missing)}')
    return {'source': {'repo': repo.name, 'commit': repo.commit, 'licence': repo.licence}, 'rules': {rule_id: rules[rule_id] for rule_id in rule_ids}}


if __name__ == '__main__':
    # python3 bench/validity/extract/secret_sources.py [--mirror DIR] np.square.2 np.square.1 … > plugins/metrics/shared/noseyparker-rules.examples.json
    import argparse
    import json
    import sys
    from extract import Repo
    parser = argparse.ArgumentParser()
    parser.add_argument('--mirror', default='/work/.mirror')
    parser.add_argument('rules', nargs='+')
    args = parser.parse_args()
    fixture = examples_fixture(Repo(args.mirror, 'praetorian-inc/noseyparker', 'Apache-2.0'), args.rules)
    json.dump(fixture, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write('\n')
