#!/usr/bin/python3
"""Checks one --json answer of cudnn-install against its contract (docs/json-schema.md).

Usage: check-json-answer.py EXIT_CODE < STDOUT
stdout must hold exactly one JSON object; its kind picks docs/schema/<kind>.json, which it must
satisfy; its exit_code must be the process's. Exit 0 when it does, 1 with the reasons otherwise.
Runs on Debian's /usr/bin/python3, where python3-jsonschema is installed (scripts/setup.sh).
"""
import json
import pathlib
import sys
import warnings

import jsonschema

warnings.filterwarnings("ignore", category=DeprecationWarning)  # RefResolver, deprecated in jsonschema 4.18

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent.parent / "docs" / "schema"
BASE = "https://cudnn-install.invalid/schema/2/"
# The README's exit-code table, by error code.
EXIT_OF_CODE = {"usage": 1, "bad-name": 2, "bad-archive": 2, "unsafe-entry": 2, "version-mismatch": 2,
                "integrity-failure": 2, "no-toolkit": 3, "cuda-mismatch": 2, "conflict": 3, "io": 4,
                "verify-failed": 5, "nothing-to-undo": 6, "env-limit": 2, "no-release": 2, "network": 4,
                "interrupted": 130, "terminated": 143, "hung-up": 129}


def problems(text: str, exit_code: int) -> list[str]:
    try:
        answer, end = json.JSONDecoder().raw_decode(text.lstrip())
    except json.JSONDecodeError as e:
        return [f"stdout is not one JSON object: {e}"]
    if text.lstrip()[end:].strip():
        return ["stdout holds more than one JSON object (or text after it)"]
    if not isinstance(answer, dict):
        return ["the answer is not an object"]
    kind = answer.get("kind")
    path = SCHEMA_DIR / f"{kind}.json"
    if not isinstance(kind, str) or not path.is_file():
        return [f"unknown kind {kind!r}"]
    store = {BASE + p.name: json.loads(p.read_text()) for p in SCHEMA_DIR.glob("*.json")}
    schema = store[BASE + path.name]
    resolver = jsonschema.RefResolver(base_uri=BASE + path.name, referrer=schema, store=store)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    found = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(answer)]
    if answer.get("exit_code") != exit_code:
        found.append(f"exit_code {answer.get('exit_code')!r} but the process exited {exit_code}")
    if kind == "error" and EXIT_OF_CODE.get(answer.get("code")) != answer.get("exit_code"):
        found.append(f"code {answer.get('code')!r} does not give exit code {answer.get('exit_code')!r}")
    return found


def main() -> int:
    found = problems(sys.stdin.read(), int(sys.argv[1]))
    for p in found:
        print(f"json contract: {p}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
