"""A line diff whose work is bounded whatever the texts (pure, no I/O).

difflib's SequenceMatcher, which `drafts.diff` used, finds the longest matching block and recurses
on both sides: quadratic (and worse) in the number of lines when many lines repeat, so two 48 KB
versions cost 12 s of CPU and two of 150 KB minutes. Here:

1. every line is interned to an integer once (hashing is linear in the text);
2. the common prefix and suffix are matched in one pass each (a typical edit leaves little between);
3. the rest goes to Myers' greedy algorithm, which finds a shortest edit script in O((N + M) * D)
   steps for D changed lines (E. W. Myers, "An O(ND) Difference Algorithm and Its Variations",
   Algorithmica 1 (1986) 251-266, section 3). It is stopped after `max_changes` changed lines or
   (max_changes + 1)^2 + 2 (N + M) steps, whichever comes first; the stretch is then answered as
   replaced whole, which is still a correct diff (applying it gives the new text), only coarser.

The result has difflib's opcode shape (tag, i1, i2, j1, j2), and `unified` prints it exactly as
`difflib.unified_diff` prints its own opcodes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

Opcode = tuple[str, int, int, int, int]  # difflib's shape: tag, a[i1:i2], b[j1:j2]
Block = tuple[int, int, int]  # a[i:i+size] == b[j:j+size]


def opcodes(a: Sequence[str], b: Sequence[str], max_changes: int) -> list[Opcode]:
    """How to turn `a` into `b` (equal / replace / delete / insert runs, in order), with at most
    `max_changes` lines searched for a minimal script (beyond: the differing stretch replaced whole)."""
    ids: dict[str, int] = {}
    x = [ids.setdefault(line, len(ids)) for line in a]
    y = [ids.setdefault(line, len(ids)) for line in b]
    n, m = len(x), len(y)
    head = 0
    while head < n and head < m and x[head] == y[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and x[n - 1 - tail] == y[m - 1 - tail]:
        tail += 1
    # None: too many changes to search; no matching block in the stretch = replaced whole.
    middle = _myers(x[head : n - tail], y[head : m - tail], max_changes) or []
    blocks: list[Block] = [(0, 0, head), *((i + head, j + head, size) for i, j, size in middle)]
    blocks.append((n - tail, m - tail, tail))
    return _opcodes(blocks, n, m)


def _myers(a: Sequence[int], b: Sequence[int], max_changes: int) -> list[Block] | None:
    """The matching blocks of a shortest edit script of a -> b, or None when it needs more than
    `max_changes` edits or more steps than the budget (the caller then replaces the stretch whole)."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return []
    max_d = min(max_changes, n + m)
    budget = (max_d + 1) ** 2 + 2 * (n + m)
    offset = max_d + 1
    v = [0] * (2 * max_d + 3)  # v[offset + k]: the furthest x reached on diagonal k = x - y
    trace: list[list[int]] = []  # trace[d][k + d]: v after step d, for k in -d..d
    steps = 0
    for d in range(max_d + 1):
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]  # down: b[y] inserted
            else:
                x = v[offset + k - 1] + 1  # right: a[x - 1] deleted
            y = x - k
            start = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[offset + k] = x
            steps += 1 + x - start
            if x >= n and y >= m:
                trace.append(v[offset - d : offset + d + 1])
                return _backtrack(trace, n, m)
        trace.append(v[offset - d : offset + d + 1])
        if steps > budget:
            return None
    return None


def _backtrack(trace: Sequence[Sequence[int]], n: int, m: int) -> list[Block]:
    """The snakes (diagonal runs of equal lines) of the path that reached (n, m), first to last."""
    blocks: list[Block] = []
    x, y = n, m
    for d in range(len(trace) - 1, 0, -1):
        k = x - y
        before = trace[d - 1]  # index k' + (d - 1)
        down = k == -d or (k != d and before[k - 1 + d - 1] < before[k + 1 + d - 1])
        prev_k = k + 1 if down else k - 1
        prev_x = before[prev_k + d - 1]
        mid_x = prev_x if down else prev_x + 1  # where the edit of step d landed, before its snake
        if x > mid_x:
            blocks.append((mid_x, mid_x - k, x - mid_x))
        x, y = prev_x, prev_x - prev_k
    if x > 0:  # step 0's snake: equal lines from the start (none after the prefix is trimmed)
        blocks.append((0, 0, x))
    blocks.reverse()
    return blocks


def _opcodes(blocks: Sequence[Block], n: int, m: int) -> list[Opcode]:
    """difflib.SequenceMatcher.get_opcodes over these matching blocks."""
    out: list[Opcode] = []
    i = j = 0
    for ai, bj, size in [*blocks, (n, m, 0)]:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            out.append((tag, i, ai, j, bj))
        if size:
            if out and out[-1][0] == "equal":  # adjacent blocks (the prefix and the first snake) merge
                out[-1] = ("equal", out[-1][1], ai + size, out[-1][3], bj + size)
            else:
                out.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return out


def grouped(codes: Sequence[Opcode], context: int) -> Iterator[list[Opcode]]:
    """The hunks: changes with up to `context` equal lines around them, changes closer than twice
    that in one hunk (the logic of CPython's difflib.SequenceMatcher.get_grouped_opcodes)."""
    codes = list(codes) or [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        start_a, start_b = i1, j1
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            start_a, start_b = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, start_a, i2, start_b, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """A hunk header's range, as difflib writes it ('3', '3,4', or '2,0' for an empty one)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def unified(
    a: Sequence[str], b: Sequence[str], from_label: str, to_label: str, codes: Sequence[Opcode], context: int
) -> Iterator[str]:
    """The unified diff lines of `codes` over a and b (lines with their endings), as difflib prints them."""
    started = False
    for group in grouped(codes, context):
        if not started:
            started = True
            yield f"--- {from_label}\n"
            yield f"+++ {to_label}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])
