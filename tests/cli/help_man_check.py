#!/usr/bin/env python3
"""Each command's --help (printed from its option table; every command
`onnxcost --help` lists) and its section of
the man page (docs/onnxcost.1) list the same options: the OPTIONS section for
analyze, the ".SS onnxcost CMD" sections under COMMANDS for the others. An
option counts in the man page where a .TP entry's first line names it."""
import re
import subprocess
import sys

onnxcost, man_path = sys.argv[1], sys.argv[2]
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])(?![\w-])")


def help_options(cmd):
    out = subprocess.run([onnxcost, cmd, "--help"], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        m = re.match(r"  (-\S.*?)(?:  |$)", line)  # an option line: its label
        if m:
            found |= set(OPT.findall(m.group(1)))
    return found


def man_sections(text):
    """command -> options named on the first line after each .TP; a section that says "Options: those of
    analyze (OPTIONS)" (ranges) has analyze's"""
    text = text.replace("\\-", "-")
    sections, cur, lines, same = {}, None, text.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            cur = "analyze" if line.strip() == ".SH OPTIONS" else None
        elif line.startswith(".SS onnxcost "):
            cur = line.split()[2]
            sections.setdefault(cur, set())
        elif cur and "Options: those of analyze (OPTIONS)." in line:
            same.append(cur)
        elif line.startswith(".TP") and cur and i + 1 < len(lines):
            head = re.sub(r'\\f[BIRP]|"', " ", lines[i + 1])
            sections.setdefault(cur, set()).update(OPT.findall(head))
    for cmd in same:
        sections[cmd] = sections[cmd] | sections.get("analyze", set())
    return sections


def commands():
    """Every command `onnxcost --help` lists that takes options (version and
    help take none)."""
    out = subprocess.run([onnxcost, "--help"], capture_output=True, text=True, check=True).stdout
    body = out.split("commands:", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  ([a-z]+) ", body, re.M) if m.group(1) not in ("version", "help")]


man = man_sections(open(man_path, encoding="utf-8").read())
fails = 0
cmds = commands()
if len(cmds) < 14:
    print(f"FAIL: only {len(cmds)} commands found in onnxcost --help: {cmds}")
    fails += 1
for cmd in cmds:
    h = help_options(cmd) - {"-h", "--help"}
    m = man.get(cmd, set()) - {"-h", "--help"}
    if h != m:
        fails += 1
        print(f"FAIL {cmd}: only in --help: {sorted(h - m)}; only in the man page: {sorted(m - h)}")
    elif not h:
        fails += 1
        print(f"FAIL {cmd}: no options found")
print(f"help and man page: {'ok' if not fails else str(fails) + ' commands differ'}")
sys.exit(1 if fails else 0)
