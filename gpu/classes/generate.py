#!/usr/bin/env python3
"""Generates the method-name tables `gpu/classes/<class>.methods` from NVIDIA's open-gpu-doc class headers.

Usage:
    python3 gpu/classes/generate.py [--git-dir DIR] [--commit SHA] [--out-dir DIR] HEADER...

Each HEADER is one class header from https://github.com/NVIDIA/open-gpu-doc (`classes/**/cl*.h`, MIT licence):
a file, or, with `--git-dir` (an open-gpu-doc clone, bare or not) and no such file, a path inside that
repository read at HEAD. Only the facts the header states are taken: method names and byte offsets. The output
goes to `<out-dir>/<class>.methods` (`b197.methods` for `clb197.h`); `--out-dir` defaults to this script's folder.
The recorded commit is `--commit`, else HEAD of `--git-dir`, else "unknown".

The tables in this folder were made with:
    python3 gpu/classes/generate.py --git-dir OPEN_GPU_DOC classes/host/clb06f.h classes/3d/clb197.h \
        classes/compute/clb1c0.h classes/dma-copy/clb0b5.h classes/twod/cl902d.h \
        classes/inline-to-memory/cla140.h classes/compute/clc7c0.h classes/dma-copy/clc7b5.h classes/3d/clc797.h

Standard library only. See `FORMAT` below for the output format and how array element counts are derived.
"""

import argparse
import os
import re
import subprocess
import sys

# Method space of one class: the pushbuffer method address is 12 bits of 32-bit words (NVB06F_DMA_METHOD_ADDRESS
# 11:0), so byte offsets run below 0x4000.
METHOD_SPACE_END = 0x4000
# Offsets from 0x3800 up are the MME macro calls (CALL_MME_MACRO/CALL_MME_DATA pairs) in the classes that take
# macros; an array below it never runs into that region, even where the header does not define the calls.
MME_REGION = 0x3800

# Defines that are not methods although their value looks like an offset: the host class's pushbuffer and GPFIFO
# entry formats (NVB06F_DMA_*, NVB06F_GP_ENTRY*; NVB06F_DMA_NOP `(0x00000000)` would otherwise read as a method).
EXCLUDED = {
    'b06f': ('DMA_', 'GP_ENTRY'),
}

# Element counts the offsets alone cannot give: the header leaves reserved space after these arrays (or, for the
# MME macro calls, the hardware has fewer entries than the method space), so the gap rule would count that space
# as elements. The counts are those of envytools' rnndb (https://github.com/envytools/envytools, MIT licence,
# rnndb/graph/gf100_3d.xml and rnndb/fifo/nv_object.xml at commit f102b82381f3f11cee113d16374c87091db039d9),
# whose `length` attributes give array lengths by offset. Keys are (class, name or `PREFIX*`); an entry applies to
# the whole interleaved group of a matching array; for a two-dimensional array the count is the outer one.
COUNT_OVERRIDES = {
    ('b197', 'SET_STREAM_OUT_BUFFER_*'): (4, 'envytools gf100_3d.xml TFB length 4; the 4 stream-out buffers'),
    ('b197', 'SET_STREAM_OUT_LAYOUT_SELECT'): (4, 'envytools gf100_3d.xml TFB_VARYING_LOCS stripe length 4; one '
                                                 'per stream-out buffer'),
    ('b197', 'SET_SCISSOR_*'): (16, 'envytools SCISSOR_* length 16; 0x0f00..0x0f0f is reserved'),
    ('b197', 'SET_POLYGON_STIPPLE_PATTERN'): (32, 'envytools POLYGON_STIPPLE_PATTERN length 32; 32x32 bits'),
    ('b197', 'SET_PIPELINE_*'): (6, 'envytools SP stripe length 6; the 6 SET_PIPELINE_SHADER_TYPE values'),
    ('b197', 'LOAD_CONSTANT_BUFFER'): (16, 'envytools CB_DATA length 16'),
    ('b197', 'BIND_GROUP_*'): (5, 'envytools CB_BIND length 5; one bind group per shader stage'),
    ('b197', 'CALL_MME_*'): (128, 'envytools nv_object.xml MACRO length 0x80'),
    ('902d', 'CALL_MME_*'): (128, 'envytools nv_object.xml MACRO length 0x80'),
}

FORMAT = """\
# Format: one method per line, sorted by byte offset (hexadecimal, 4 digits):
#   <offset> <NAME>                     a single method
#   <offset> <NAME> <stride> <count>    an array: element k is at offset + k * stride (stride in bytes, decimal)
# NAME is the header's define without its `NV<class>_` prefix. Lines starting with `#` are comments.
# Two-dimensional arrays (`NAME(i,j)` at `base + i*outer + j*inner`) are flattened to one array line per outer
# index i, named `NAME(i)`, whose stride and count are those of j (count = outer / inner).
# Element counts: the headers give none (neither do Mesa's copies of them, src/nouveau/headers/nvidia/classes).
# They are deduced from the offsets. Gap rule: arrays of the same stride whose bases lie within one stride of the
# lowest (interleaved siblings) form a group; the group ends at the next defined offset above its lowest base
# that is none of its own, or at 0x3800 (MME macro calls) / 0x4000 (end of the method space), and each member
# has floor((end - lowest base) / stride) elements. Run rule: a group that starts where a run of same-stride
# groups with equal counts c ends, and whose gap would give more than c, has c elements (the rest is reserved).
# Counts set by the run rule or by a table in generate.py are listed under `Counts not from the gap rule`."""

DEFINE = re.compile(r'^\s*#\s*define\s+(\w+)(\([^)]*\))?\s+(.*?)\s*$')
FIELD = re.compile(r'^\d+:\d+$')
OFFSET = re.compile(r'^\(?\s*(0x[0-9a-fA-F]+)\s*\)?$')
ARRAY1 = re.compile(r'^\(\s*(0x[0-9a-fA-F]+)\s*\+\s*\((\w)\)\s*\*\s*(\d+)\s*\)$')
ARRAY2 = re.compile(r'^\(\s*(0x[0-9a-fA-F]+)\s*\+\s*\((\w)\)\s*\*\s*(\d+)\s*\+\s*\((\w)\)\s*\*\s*(\d+)\s*\)$')


class Method:
    def __init__(self, name, offset, stride=None, outer=None, line=0):
        self.name = name
        self.offset = offset
        self.stride = stride  # bytes between elements; None for a single method
        self.outer = outer  # outer stride of a two-dimensional array
        self.count = None
        self.outer_count = None
        self.line = line
        self.fields = []


def warn(msg):
    print('warning: ' + msg, file=sys.stderr)


def parse(text, path):
    """Returns (class id such as 'b197', list of Method) for one header."""
    cls = None
    for m in re.finditer(r'^\s*#\s*define\s+NV([0-9A-F]{4})_\w+', text, re.M):
        cls = m.group(1)
        break
    if cls is None:
        raise SystemExit(f'{path}: no NVxxxx_ defines')
    prefix = f'NV{cls}_'
    cls = cls.lower()
    excluded = EXCLUDED.get(cls, ())

    methods = []
    current = None  # the method the following field defines belong to
    for lineno, line in enumerate(text.splitlines(), 1):
        m = DEFINE.match(line)
        if not m:
            continue
        full, args, value = m.group(1), m.group(2), m.group(3)
        if not full.startswith(prefix):
            continue
        name = full[len(prefix):]
        if name.startswith(excluded):
            continue
        if FIELD.match(value):
            if current is None or not name.startswith(current.name + '_'):
                warn(f'{path}:{lineno}: field {full} outside its method')
                current = None
                continue
            current.fields.append(name)
            continue
        a2 = ARRAY2.match(value)
        a1 = ARRAY1.match(value)
        o = OFFSET.match(value)
        if a2:
            base, i, outer, j, inner = a2.groups()
            if args is None or [s.strip() for s in args[1:-1].split(',')] != [i, j]:
                warn(f'{path}:{lineno}: {full}: index names do not match {value}')
            current = Method(name, int(base, 16), int(inner), int(outer), lineno)
            methods.append(current)
        elif a1:
            base, i, stride = a1.groups()
            if args is None or args[1:-1].strip() != i:
                warn(f'{path}:{lineno}: {full}: index name does not match {value}')
            current = Method(name, int(base, 16), int(stride), None, lineno)
            methods.append(current)
        elif o:
            if args is not None:
                warn(f'{path}:{lineno}: {full}{args}: macro with a plain value, skipped')
                continue
            # A value of a field of the current method (NAME_FIELD_VALUE) is no method.
            if current is not None and any(name.startswith(f + '_') for f in current.fields):
                continue
            current = Method(name, int(o.group(1), 16), line=lineno)
            methods.append(current)
        else:
            # Anything else (decimal constants such as NUMBER_OF_SUBCHANNELS, typedef names) is no method.
            current = None
    return cls, methods


def glob_match(pattern, name):
    return name.startswith(pattern[:-1]) if pattern.endswith('*') else name == pattern


def deduce_counts(cls, methods):
    """Fills in count (and outer_count) of every array. Returns notes on the counts set by a rule other than the
    plain gap rule, for the output's header."""
    notes = []
    offsets = sorted({m.offset for m in methods})

    # Groups: interleaved siblings share one count. A group is anchored at its lowest base; a sibling is an array
    # of the same stride whose base lies in [anchor, anchor + stride). A two-dimensional array is a group of its own
    # with its outer stride.
    groups = []
    for m in sorted((m for m in methods if m.stride is not None), key=lambda m: m.offset):
        step = m.outer or m.stride
        for g in groups:
            if g['step'] == step and m.outer is None and g['members'][0].outer is None \
                    and g['base'] <= m.offset < g['base'] + step:
                g['members'].append(m)
                break
        else:
            groups.append({'base': m.offset, 'step': step, 'members': [m]})

    def label(g):
        names = [m.name for m in g['members']]
        if len(names) == 1:
            return names[0]
        common = os.path.commonprefix(names)
        return common[:common.rfind('_') + 1] + f'* ({len(names)} interleaved)'

    def set_count(g, n):
        g['count'] = n
        for m in g['members']:
            if m.outer is not None:
                m.count = m.outer // m.stride
                m.outer_count = n
            else:
                m.count = n

    # Gap rule: a group ends at the next defined offset above its base that is none of its members, or at the MME
    # region / end of the method space; it holds as many whole steps as fit.
    for g in groups:
        own = {m.offset for m in g['members']}
        end = METHOD_SPACE_END if g['base'] >= MME_REGION else MME_REGION
        for o in offsets:
            if o > g['base'] and o not in own:
                end = min(end, o)
                break
        n = (end - g['base']) // g['step']
        if n < 1:
            warn(f'{cls} {g["members"][0].name}: no room for one element before 0x{end:x}')
            n = 1
        for m in g['members']:
            if m.outer is not None and m.outer % m.stride:
                warn(f'{cls} {m.name}: outer stride {m.outer} is not a multiple of {m.stride}')
        set_count(g, n)

    # Run rule: groups of the same step laid out back to back with equal counts c form a run; a group that follows
    # a run directly (it starts where the run ends) with the same step but a larger gap count is taken to hold c too,
    # the rest of its gap being reserved space. This ends the run.
    by_step = {}
    for g in groups:
        if g['members'][0].outer is None:
            by_step.setdefault(g['step'], []).append(g)
    for step, gs in by_step.items():
        run = []
        for g in gs:
            contiguous = run and run[-1]['base'] + run[-1]['count'] * step == g['base']
            if contiguous and g['count'] == run[0]['count']:
                run.append(g)
            elif contiguous and g['count'] > run[0]['count']:
                c = run[0]['count']
                before = ', '.join(label(r) for r in run)
                notes.append(f'{label(g)}: {c} (starts where {before} ({c} each) ends; the gap would give '
                             f'{g["count"]})')
                set_count(g, c)
                run = []
            else:
                run = [g]

    # Explicit counts.
    for (ocls, pattern) in COUNT_OVERRIDES:
        if ocls == cls and not any(glob_match(pattern, m.name) for m in methods if m.stride is not None):
            warn(f'{cls}: COUNT_OVERRIDES entry {pattern} matches no array')
    for g in groups:
        for (ocls, pattern), (n, why) in COUNT_OVERRIDES.items():
            if ocls == cls and any(glob_match(pattern, m.name) for m in g['members']):
                notes.append(f'{label(g)}: {n} ({why}; the gap would give {g["count"]})')
                set_count(g, n)
                break
    return notes


def split_arrays(methods):
    """Pairs of arrays that are two halves of one array: names equal but for one `_A`/`_B` word, the same fields,
    stride and count, the `_B` one starting where the `_A` one ends."""
    arrays = {m.name: m for m in methods if m.stride is not None and m.outer is None}
    out = []
    for name, a in arrays.items():
        words = name.split('_')
        for k, w in enumerate(words):
            if w != 'A':
                continue
            other = '_'.join(words[:k] + ['B'] + words[k + 1:])
            b = arrays.get(other)
            same_fields = [f[len(name):] for f in a.fields] == [f[len(other):] for f in b.fields] if b else False
            if b and same_fields and b.stride == a.stride and b.count == a.count \
                    and b.offset == a.offset + a.count * a.stride:
                out.append((a, b))
    return out


def rows(methods):
    out = []
    for m in methods:
        if m.stride is None:
            out.append((m.offset, m.name, None, None))
        elif m.outer is None:
            out.append((m.offset, m.name, m.stride, m.count))
        else:
            for i in range(m.outer_count):
                out.append((m.offset + i * m.outer, f'{m.name}({i})', m.stride, m.count))
    out.sort(key=lambda r: (r[0], r[1]))
    return out


def check(cls, out):
    """Duplicate offsets and overlapping elements, as warnings."""
    seen = {}
    for off, name, stride, count in out:
        elems = [off] if stride is None else [off + k * stride for k in range(count)]
        for e in elems:
            if e >= METHOD_SPACE_END:
                warn(f'{cls} {name}: element at 0x{e:x} is past the method space')
            if e in seen:
                warn(f'{cls}: 0x{e:04x} is both {seen[e]} and {name}')
            else:
                seen[e] = name


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('headers', nargs='+')
    ap.add_argument('--out-dir', default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument('--git-dir', help='open-gpu-doc git directory: the commit id, and headers not found as files')
    ap.add_argument('--commit', help='open-gpu-doc commit id to record')
    args = ap.parse_args()

    commit = args.commit
    if commit is None and args.git_dir:
        commit = subprocess.run(['git', '-C', args.git_dir, 'rev-parse', 'HEAD'], check=True,
                                capture_output=True, text=True).stdout.strip()
    commit = commit or 'unknown'

    for path in args.headers:
        if os.path.isfile(path) or not args.git_dir:
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
        else:
            text = subprocess.run(['git', '-C', args.git_dir, 'show', f'HEAD:{path}'], check=True,
                                  capture_output=True, text=True).stdout
        cls, methods = parse(text, path)
        notes = deduce_counts(cls, methods)
        out = rows(methods)
        check(cls, out)
        source = path
        title = re.search(r'^\s*#\s*define\s+(\w+)\s+\(?0x0*' + cls + r'\)?\s*$', text, re.M | re.I)
        lines = [
            f'# Methods of NVIDIA class {cls.upper()}' + (f' ({title.group(1)})' if title else '') + '.',
            f'# Generated by gpu/classes/generate.py from open-gpu-doc {source}',
            f'# (https://github.com/NVIDIA/open-gpu-doc, MIT licence), commit {commit}.',
            '# Method names and byte offsets only; the field layouts are in the header.',
            FORMAT,
        ]
        if notes:
            lines.append('# Counts not from the gap rule:')
            lines += [f'#   {n}' for n in notes]
        halves = split_arrays(methods)
        if halves:
            lines.append('# Arrays the header splits in two halves (same fields; NAME_B(k) is entry count + k of the '
                         'whole):')
            lines += [f'#   {a.name} + {b.name} ({a.count} + {b.count})' for a, b in halves]
        for off, name, stride, count in out:
            lines.append(f'0x{off:04x} {name}' if stride is None else f'0x{off:04x} {name} {stride} {count}')
        dest = os.path.join(args.out_dir, f'{cls}.methods')
        with open(dest, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')
        print(f'{dest}: {len(out)} methods')


if __name__ == '__main__':
    main()
