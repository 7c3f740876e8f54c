"""Reads the literal parts of Python test files with `ast`: constants, lists and pytest parametrize tables.

Nothing is imported or run: anything that is not a literal (or one of a few pure operations on literals)
raises Unsupported and is skipped by the caller.
"""
import ast


class Unsupported(Exception):
    pass


def literal(node, names=None, funcs=None):
    """Evaluates constants, tuples/lists/dicts, names bound to literals, `+`, `*`, str.upper/lower,
    slices, `Message(text)` (garak) and the given pure functions; anything else is Unsupported."""
    names = names or {}
    funcs = funcs or {}
    rec = lambda n: literal(n, names, funcs)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [rec(element) for element in node.elts]
    if isinstance(node, ast.Dict):
        return {rec(k): rec(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise Unsupported(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        left, right = rec(node.left), rec(node.right)
        return left + right if isinstance(node.op, ast.Add) else left * right
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -rec(node.operand)
    if isinstance(node, ast.Subscript):
        value = rec(node.value)
        if isinstance(node.slice, ast.Slice):
            lower = rec(node.slice.lower) if node.slice.lower else None
            upper = rec(node.slice.upper) if node.slice.upper else None
            return value[lower:upper]
        return value[rec(node.slice)]
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ('upper', 'lower') and not node.args:
            return getattr(rec(func.value), func.attr)()
        if isinstance(func, ast.Name) and func.id == 'Message':
            if node.args:
                return rec(node.args[0])
            for keyword in node.keywords:
                if keyword.arg == 'text':
                    return rec(keyword.value)
        if isinstance(func, ast.Name) and func.id in funcs:
            return funcs[func.id](*[rec(arg) for arg in node.args])
    raise Unsupported(ast.dump(node)[:80])


def module_constants(tree):
    """Module-level NAME = <literal> assignments, in order (later ones may use earlier ones)."""
    names = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            try:
                names[statement.targets[0].id] = literal(statement.value, names)
            except Unsupported:
                pass
    return names


def parametrize_tables(tree, names=None, funcs=None):
    """Every @pytest.mark.parametrize("a, b, ...", [rows]) as (function name, [dict per row]);
    rows that are not literals are skipped."""
    tables = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) and decorator.func.attr == 'parametrize'):
                continue
            argnames = decorator.args[0].value if isinstance(decorator.args[0], ast.Constant) else None
            if not isinstance(argnames, str) or not isinstance(decorator.args[1], (ast.List, ast.Tuple)):
                continue
            keys = [key.strip() for key in argnames.split(',')]
            rows = []
            for element in decorator.args[1].elts:
                try:
                    value = literal(element, names, funcs)
                except Unsupported:
                    continue
                if len(keys) == 1:
                    value = [value]
                if isinstance(value, list) and len(value) == len(keys):
                    rows.append(dict(zip(keys, value)))
            tables.append((node.name, rows))
    return tables
