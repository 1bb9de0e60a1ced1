# Regenerates jinja2_semantics.json, the reference results of the cases in
# jinja2_semantics_cases.json ([template, variables] pairs), rendered with
# Python jinja2 set up as transformers' apply_chat_template sets it up:
#
#   python3 gen_jinja2_semantics.py < jinja2_semantics_cases.json > jinja2_semantics.json
#
# (generated with jinja2 3.1.6 and markupsafe 3).
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.ext import loopcontrols
from jinja2.exceptions import TemplateError

def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
def raise_exception(m): raise TemplateError(m)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
env.filters['tojson'] = tojson
env.globals['raise_exception'] = raise_exception
cases = json.load(sys.stdin)
out = []
for src, vars in cases:
    try:
        r = env.from_string(src).render(**vars)
        out.append({"src": src, "vars": vars, "out": r})
    except Exception as e:
        out.append({"src": src, "vars": vars, "err": type(e).__name__ + ": " + str(e)})
print(json.dumps(out, ensure_ascii=False, indent=1))
