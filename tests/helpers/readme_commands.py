#!/usr/bin/env python3
"""readme_commands.py ROOT HARNESS: the commands README.md tells a newcomer
to type are real (issue 29: "a fresh clone, README only"). In its ```sh
blocks (continuation lines joined): every `harness SUB ... --flag` names a
flag `harness SUB --help` lists, every `make TARGET` a target of the
Makefile; anywhere in it, every specs/templates/NAME.yaml exists. Prints
one line per stale command and exits 1; prints the count checked and
exits 0 otherwise."""
import os
import re
import shlex
import subprocess
import sys

root, harness = sys.argv[1], sys.argv[2]
text = open(os.path.join(root, "README.md")).read()
make = open(os.path.join(root, "Makefile")).read()
bad, n = [], 0
helps = {}
for block in re.findall(r"```sh\n(.*?)```", text, re.S):
    for line in block.replace("\\\n", " ").splitlines():
        line = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        for i, w in enumerate(words):
            if w == "make" and i + 1 < len(words):
                n += 1
                if not re.search(r"^%s:" % re.escape(words[i + 1]), make, re.M):
                    bad.append("make %s: no such Makefile target" % words[i + 1])
            # a command: first on its line, after a separator or in $( )
            cmd = (w in ("harness", "./bin/harness", "bin/harness") and
                   (i == 0 or words[i - 1] in ("|", "||", "&&", ";", "time", "!")))
            if w.endswith("$(harness"):
                cmd = True
            if not cmd or i + 1 >= len(words):
                continue
            sub = words[i + 1]
            if sub not in helps:
                p = subprocess.run([harness, sub, "--help"], capture_output=True, text=True)
                helps[sub] = p.stdout + p.stderr if p.returncode == 0 else None
            n += 1
            if helps[sub] is None:
                bad.append("harness %s: --help fails (no such command?)" % sub)
                continue
            for f in words[i + 2:]:
                if f in ("|", "||", "&&", ";") or f.startswith(">"):
                    break
                if f.startswith("--"):
                    f = f.split("=", 1)[0]
                    if not re.search(re.escape(f) + r"\b", helps[sub]):
                        bad.append("harness %s %s: not in `harness %s --help`" % (sub, f, sub))
for t in sorted(set(re.findall(r"specs/templates/[\w.-]+\.yaml", text))):
    n += 1
    if not os.path.exists(os.path.join(root, t)):
        bad.append("%s: no such file" % t)
for b in bad:
    print(b)
if not bad:
    print("%d commands and paths checked" % n)
sys.exit(1 if bad else 0)
