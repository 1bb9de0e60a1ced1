# Generates random jinja2 expressions over a few variables (strings,
# Markup strings, numbers, undefined values) that mix "+", "-", "~", "*",
# conditionals, filters and parentheses, as cases for
# gen_jinja2_semantics.py:
#
#   python3 gen_jinja2_random_cases.py > jinja2_random_cases.json
#   python3 gen_jinja2_semantics.py < jinja2_random_cases.json > jinja2_random.json
#
# Filters that jinja2 applies to Markup strings keeping them Markup (upper,
# trim, ...) and "*" on None are left out: they are known differences.
import json, random
random.seed(7)
atoms_s = ["s", "t", "'x'", "\"<y>\"", "s|upper", "t|default('d')", "(s ~ t)", "l[0]", "d.k", "d['k']", "s|safe", "'&'|e", "u", "d.z"]
atoms_n = ["n", "m", "1", "2", "(n + 1)", "l|length", "-n", "n * 2", "true"]
def expr(depth, kind):
    if depth == 0 or random.random() < 0.3:
        return random.choice(atoms_s if kind == 's' else atoms_n)
    r = random.random()
    if kind == 's':
        if r < 0.45: return expr(depth-1,'s') + random.choice([" + ", "+", " ~ "]) + expr(depth-1,'s')
        if r < 0.55: return "(" + expr(depth-1,'s') + ")"
        if r < 0.65: return expr(depth-1,'s') + " if " + random.choice(["c", "not c", "n > 1", "s == 'a'"]) + " else " + expr(depth-1,'s')
        if r < 0.75: return "(" + expr(depth-1,'s') + ")|" + random.choice(["string", "length|string", "list|join"])
        if r < 0.85: return expr(depth-1,'s') + " ~ " + expr(depth-1,'n')
        return "[" + expr(depth-1,'s') + ", " + expr(depth-1, 's') + "]|join(" + expr(0,'s') + ")"
    else:
        if r < 0.5: return expr(depth-1,'n') + random.choice([" + ", " - ", " * ", "+"]) + expr(depth-1,'n')
        if r < 0.7: return "(" + expr(depth-1,'n') + ")"
        if r < 0.85: return "(" + expr(depth-1,'s') + ")|length"
        return expr(depth-1,'n') + " if c else " + expr(depth-1,'n')
vars = {"s": "a", "t": "<b>", "n": 3, "m": 2.5, "l": ["q", 1], "d": {"k": "v&"}, "c": True}
cases = []
seen=set()
while len(cases) < 400:
    k = random.choice('sn')
    e = expr(4, k)
    src = "{{ " + e + " }}"
    if src in seen: continue
    seen.add(src)
    cases.append([src, vars])
print(json.dumps(cases))
