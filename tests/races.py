"""Checking a race whose values name their writer.

Every rank writes, erases and reads the same few keys (slots); a value it
writes is ``slot * 10**6 + rank * 10**4 + sequence``, and it logs ("w",
value) for a write and ("e", found) for an erase, and (slot, value or None)
for what it saw."""

import numpy as np


def write_logged(m, key, value, how, log):
    """Write `value` to map m's `key` by `how` -- "insert", "insert_many"
    (a batch of one) or "modify" -- and log ("w", value)."""
    if how == "insert":
        m.insert(key, value)
    elif how == "insert_many":
        m.insert_many(np.array([key]), np.array([value]))
    else:
        m.modify(key, lambda old: value)
    log.append(("w", value))


def writer_log_ok(slots, logs, seen, final):
    """The invariants over every rank's log (`logs`, one a rank) and
    sightings (`seen`): a read returns only a value written for that slot;
    erases succeed at most once per write; a slot's final value (`final`,
    None: absent) was written for it by a rank that neither wrote nor erased
    the slot afterwards."""
    ok = True
    for s in slots:
        written = {v for lg in logs for op, v in lg[s] if op == "w"}
        ok &= all(v is None or v in written for sn in seen for ss, v in sn if ss == s)
        ok &= sum(1 for lg in logs for op, x in lg[s] if op == "e" and x) <= len(written)
        if final[s] is None:
            continue
        fv = int(final[s])
        if fv not in written or fv // 10**6 != s:
            ok = False
            continue
        lg = logs[(fv // 10**4) % 100][s]
        at = lg.index(("w", fv))
        ok &= not any(op == "w" or (op == "e" and x) for op, x in lg[at + 1:])
    return ok
