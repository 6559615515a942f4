#!/usr/bin/env python3
"""render_check.py DIR: read every output tests/e2e/render_all.sh wrote
under DIR and print one line per thing a reader must never see:

  - "nan", "inf", "infinity" as a word (a number that is not one), in any
    text, and NaN/Infinity in JSON (which is then not JSON at all);
  - internal sentinels: "(null)", a block number >= 2^24 (a replacement
    window's internal block), 2^32 - 1, 2^64 - 1, INT_MAX, 1e+300-ish;
  - an unrounded rate: "5062.5 req/s", or a fraction in a rate column of a
    Markdown or HTML table (rates are whole requests per second from 100;
    "500.0" is only untidy: stored gate evidence of older runs has it);
  - an empty column: a Markdown or HTML table column whose every body cell
    is empty.

Each line: FILE: WHAT: the excerpt. Exit 1 when there is any, else 0.
"""
import html
import json
import os
import re
import sys

WORD = re.compile(r'(?<![A-Za-z0-9_.])[-+]?(nan|inf|infinity)(?![A-Za-z0-9_])', re.I)
SENTINELS = [
    (re.compile(r'\(null\)'), 'a NULL printed'),
    (re.compile(r'\bblock (1[6-9]\d{6,}|[2-9]\d{7,}|\d{9,})\b'), 'an internal block number'),
    (re.compile(r'\b(4294967295|18446744073709551615|2147483647|9223372036854775807)\b'),
     'an integer sentinel'),
    (re.compile(r'\b\d(\.\d+)?e\+(29\d|30\d)\b'), 'a huge sentinel'),
]
RATE = re.compile(r'(?<![\d.])(\d{3,}\.\d*[1-9]\d*) ?req/s')
RATE_HEADER = re.compile(r'^(offered )?rate\b|^rate \(req/s\)$|^offered \(req/s\)$', re.I)
FRACTION = re.compile(r'^\d{3,}\.\d*[1-9]\d*$')


def excerpt(text, m):
    a, b = max(0, m.start() - 50), min(len(text), m.end() + 50)
    return text[a:b].replace('\n', ' ')


def scan_text(path, text, out):
    for m in WORD.finditer(text):
        out.append(f'{path}: "{m.group(0)}": {excerpt(text, m)}')
    for rx, what in SENTINELS:
        for m in rx.finditer(text):
            out.append(f'{path}: {what}: {excerpt(text, m)}')
    for m in RATE.finditer(text):
        out.append(f'{path}: an unrounded rate: {excerpt(text, m)}')


def check_table(path, name, head, rows, out):
    """head: the header cells; rows: lists of body cells."""
    if not rows:
        return
    for j, h in enumerate(head):
        cells = [r[j] if j < len(r) else '' for r in rows]
        if all(not c.strip() for c in cells):
            out.append(f'{path}: table {name}: column "{h}" is empty in every row')
        if RATE_HEADER.search(h.strip()):
            for c in cells:
                if FRACTION.match(c.strip()):
                    out.append(f'{path}: table {name}: unrounded rate "{c.strip()}" in column "{h}"')
                    break


def md_tables(path, text, out):
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        if lines[i].startswith('|') and i + 1 < len(lines) and re.match(r'^\|[-:| ]+\|$', lines[i + 1]):
            head = [c.strip() for c in lines[i].strip().strip('|').split('|')]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith('|'):
                rows.append([c.strip() for c in lines[i].strip()[1:-1].split('|')])
                i += 1
            check_table(path, head[0], head, rows, out)
        else:
            i += 1


TAG = re.compile(r'<[^>]+>')


def html_text(s):
    return html.unescape(TAG.sub(' ', s))


def html_tables(path, text, out):
    for t in re.finditer(r'<table[^>]*>(.*?)</table>', text, re.S):
        trs = re.findall(r'<tr[^>]*>(.*?)</tr>', t.group(1), re.S)
        cells = [[html_text(c).strip() for c in re.findall(r'<t[hd][^>]*>(.*?)</t[hd]>', tr, re.S)]
                 for tr in trs]
        if len(cells) >= 2:
            check_table(path, cells[0][0] if cells[0] else '?', cells[0], cells[1:], out)


def json_strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from json_strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from json_strings(x)


def bad_constant(c):
    raise ValueError(f'{c} is not JSON')


def scan_json(path, text, out):
    docs = []
    try:
        docs = [json.loads(text, parse_constant=bad_constant)]
    except ValueError:
        try:   # one document per line (status --json of several)
            docs = [json.loads(l, parse_constant=bad_constant) for l in text.split('\n') if l.strip()]
        except ValueError as e:
            out.append(f'{path}: not JSON: {e}')
            return
    for d in docs:
        for s in json_strings(d):
            scan_text(path, s, out)


def main():
    root = sys.argv[1]
    out = []
    n = 0
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, root)
            if f.endswith(('.rc', '.err', '.png', '.hgrm')) or f == 'windows.csv' or f == 'study.csv':
                continue
            with open(p, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
            n += 1
            if f.endswith('.json') or f.endswith('.jsonout'):
                scan_json(rel, text, out)
            elif f.endswith('.html'):
                body = re.sub(r'<style[^>]*>.*?</style>', ' ', text, flags=re.S)
                scan_text(rel, html_text(body), out)
                html_tables(rel, text, out)
            else:
                scan_text(rel, text, out)
                if f.endswith('.md'):
                    md_tables(rel, text, out)
    for line in out:
        print(line)
    print(f'# render_check: {n} files, {len(out)} findings', file=sys.stderr)
    return 1 if out else 0


if __name__ == '__main__':
    sys.exit(main())
