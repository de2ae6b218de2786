"""`kmer --checkpoint DIR` and `--resume`: a job whose rank is killed with
SIGKILL after its first checkpoint, resumed by the same command with
`--resume`, ends with the histogram of the whole input; a checkpoint that
does not fit the job (rank count, inputs, k, --bloom) is a one-line error.

Each job runs about three rounds a pass at its rank count and commits a
checkpoint after each, so the kill lands part-way through.  The first case
resumes with the very same command (and goes on committing checkpoints);
the others resume with `--checkpoint-every 60`, which commits none in so
short a run: a save costs about 0.2 s at 4 ranks on 2 cores.  The cases
cover every transport, 2 and 4 ranks, with and without --bloom, and the
three ways inputs are read (plain: byte ranges; gzip: a stream dealt out
in blocks; BGZF: runs of blocks), each pair of them in a few jobs rather
than all combinations (CI's time).
"""
import gzip
import json
import os
import signal
import sys

import numpy as np
import pytest

import pybcl
from bgzf import bgzf
from conftest import all_ok
from launch import ROOT, job_env, mpiexec_argv, quiet_args, run_killed, run_python, wait_for
from pybcl.apps import _kernels, kmer
from test_kmer import small_reads

READS = os.path.join(ROOT, "tests", "data", "reads_1.fq.gz")       # tests/data/README.md
K = 21
ROUNDS = 3           # rounds a pass, about


def _text():
    with gzip.open(READS, "rb") as fh:
        return fh.read()


def _input(tmp_path, kind):
    """reads_1 as a plain file, a gzip stream or BGZF."""
    text = _text()
    path = tmp_path / {"plain": "r.fq", "gzip": "r.fq.gz", "bgzf": "r.fq.bgz"}[kind]
    path.write_bytes({"plain": lambda: text, "gzip": lambda: gzip.compress(text, 1),
                      "bgzf": lambda: bgzf(text, level=1)}[kind]())
    return str(path), text


def _want_histo(text):
    """The histogram of an uninterrupted count, in Jellyfish's format."""
    codes = _kernels.kmers_from_bytes(text, K)
    per_kmer = np.unique(codes, return_counts=True)[1]
    c, n = np.unique(per_kmer, return_counts=True)
    return "".join(f"{a} {b}\n" for a, b in zip(c.tolist(), n.tolist()))


def _descendants(pid):
    """Processes below `pid` (the launcher's ranks, through its proxies)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _rank_pids(launcher_pid):
    pids = []
    for p in _descendants(launcher_pid):
        try:
            with open(f"/proc/{p}/cmdline", "rb") as fh:
                if b"pybcl.apps.kmer" in fh.read():
                    pids.append(p)
        except OSError:
            pass
    return sorted(pids)


class _DyingReads(kmer.BytesSource):
    """In-memory reads handed out in small pieces; the input "dies" (an
    OSError, as a vanished file would) `dies_at` (a fraction) into every
    rank's share in pass `in_pass` over it (0: the first)."""

    def __init__(self, data, dies_at=None, in_pass=0):
        super().__init__(data, "reads")
        self.dies_at, self.in_pass, self.passes = dies_at, in_pass, 0

    def pieces(self, k, rank, nprocs):
        arr = _kernels.kmers_from_bytes(self.data, k, rank, nprocs)
        self.passes += 1
        for at in range(0, len(arr), 300):
            if self.dies_at is not None and self.passes == self.in_pass + 1 and \
                    at >= self.dies_at * len(arr):
                raise OSError("input vanished")
            yield arr[at:at + 300]


def test_a_count_that_died_resumes_in_process(tmp_path, bloom=False, in_pass=0):
    """count_kmers at this job's rank count and transport: a count whose
    input fails after a few rounds has committed checkpoints; resuming
    with the input whole gives the uninterrupted count.  (--bloom: the
    launched jobs below; one case of this test costs 13 s at 8 ranks on
    2 cores, most of it in saving.)"""
    data = small_reads(seed=5, n=1500).encode()
    where = pybcl.comm().bcast(str(tmp_path / "ckpt"), root=0)     # one folder for all
    # about three rounds a pass (each commits: saves cost most at many ranks)
    per_round = len(_kernels.kmers_from_bytes(data, 15)) // pybcl.nprocs() // 3 + 1
    args = dict(k=15, bloom=bloom, round_kmers=per_round, checkpoint=where, items=False)
    with pytest.raises(kmer.KmerInputError, match="input vanished"):
        kmer.count_kmers([_DyingReads(data, dies_at=0.6, in_pass=in_pass)], **args)
    res = kmer.count_kmers([_DyingReads(data)], resume=True, checkpoint_every=60, **args)
    want = kmer.count_kmers([data], k=15, items=False)["histogram"]
    ck = res["stats"]["checkpoint"]
    ok = ck["resumed_from_round"] is not None and ck["resumed_from_round"] >= 1
    ok = ok and ck["resumed_phase"] == ("count" if in_pass or not bloom else "filter")
    ok = ok and np.array_equal(res["histogram"], want)
    assert all_ok(ok), (ck, res["histogram"][:8], want[:8])


# (ranks, transport, --bloom, input): every transport at 2 and 4 ranks, with
# and without --bloom; every input kind at 2 and 4 ranks.  The first resumes
# with the same command, checkpoints and all.  A --bloom job is killed
# after its first checkpoint of the first pass, except at 2 ranks on rma:
# of the second pass (the count map and the second filter).
CASES = [(2, "shm", False, "plain"), (4, "shm", True, "gzip"),
         (2, "rma", True, "bgzf"), (4, "rma", False, "plain"),
         (2, "rma-node", False, "gzip"), (4, "rma-node", True, "bgzf")]


def _phase(manifest):
    try:
        return json.loads(manifest.read_text())["phase"]
    except (OSError, ValueError):
        return None


@pytest.mark.serial_only
@pytest.mark.parametrize("nprocs,transport,bloom,kind", CASES,
                         ids=[f"{p}-{t}-{'bloom' if b else 'exact'}-{i}" for p, t, b, i in CASES])
def test_a_rank_killed_after_a_checkpoint_resumes_to_the_same_histogram(
        tmp_path, nprocs, transport, bloom, kind):
    path, text = _input(tmp_path, kind)
    ckpt = tmp_path / "ckpt"
    per_round = len(_kernels.kmers_from_bytes(text, K)) // nprocs // ROUNDS + 1
    cmd = ["-m", "pybcl.apps.kmer", path, "-k", str(K), "--quiet", "--round-kmers",
           str(per_round), "--checkpoint", str(ckpt), "--histo", str(tmp_path / "h.txt"),
           "--json", str(tmp_path / "r.json")] + (["--bloom"] if bloom else [])
    env = job_env(PYBCL_TRANSPORT=transport)

    in_pass = "count" if (nprocs, transport) == (2, "rma") or not bloom else "filter"

    def kill_after_first_checkpoint(job):
        wait_for(lambda: _phase(ckpt / "manifest.json") == in_pass or job.poll() is not None,
                 120, f"first checkpoint of the {in_pass} pass")
        ranks = _rank_pids(job.pid)
        assert job.poll() is None and len(ranks) == nprocs, "the job ended before the kill"
        os.kill(ranks[-1], signal.SIGKILL)
    code, out = run_killed(mpiexec_argv(nprocs, quiet_args()) + [sys.executable, *cmd],
                           kill_after_first_checkpoint, env)
    assert code != 0, out
    assert not (tmp_path / "h.txt").exists(), out
    killed_at = json.loads((ckpt / "manifest.json").read_text())["round"]

    same = (nprocs, transport, bloom, kind) == CASES[0]
    resume = ["--resume"] + ([] if same else ["--checkpoint-every", "60"])
    r = run_python(cmd + resume, nprocs, env=env, extra=quiet_args())
    assert r.returncode == 0, r.stdout + r.stderr
    st = json.loads((tmp_path / "r.json").read_text())
    assert st["checkpoint"]["resumed_from_round"] == killed_at >= 1, r.stdout
    assert st["checkpoint"]["resumed_phase"] == in_pass
    if same:        # the resumed count goes on committing, from the next round
        assert st["checkpoint"]["round"] == killed_at + st["checkpoint"]["commits"] > killed_at
    assert f"resumed from checkpoint round {killed_at}" in r.stdout
    assert st["transport"] == transport and st["bloom"] == bloom
    assert (tmp_path / "h.txt").read_text() == _want_histo(text)
    # the checkpoint holds one round's containers: older rounds are gone
    rounds = {name.split(".")[1] for name in os.listdir(ckpt) if name.endswith(".bcl")}
    assert len(rounds) == 1, os.listdir(ckpt)


def _refused(args, nprocs, words):
    r = run_python(["-m", "pybcl.apps.kmer", *args], nprocs, extra=quiet_args())
    assert r.returncode != 0, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), r.stderr
    return lines[0]


@pytest.mark.serial_only
def test_a_checkpoint_of_another_job_is_refused(tmp_path):
    path, text = _input(tmp_path, "plain")
    ckpt = str(tmp_path / "ckpt")
    per_round = len(_kernels.kmers_from_bytes(text, K)) // 3 + 1
    base = [path, "-k", str(K), "--quiet", "--checkpoint", ckpt]
    r = run_python(["-m", "pybcl.apps.kmer", *base, "--round-kmers", str(per_round)], 1,
                   extra=quiet_args())
    assert r.returncode == 0 and "checkpoint(s) committed" in r.stdout, r.stdout + r.stderr
    manifest = (tmp_path / "ckpt" / "manifest.json").read_text()

    _refused(base + ["--resume"], 2, ["--resume", "1 rank(s)", "this job has 2"])
    _refused([path, "-k", "25", "--quiet", "--checkpoint", ckpt, "--resume"], 1,
             ["k=21", "k=25"])
    _refused(base + ["--resume", "--bloom"], 1, ["without --bloom"])
    other = tmp_path / "other.fq"
    other.write_bytes(text[:len(text) // 2])
    _refused([str(other), *base[1:], "--resume"], 1, ["inputs were", "other.fq"])
    # the refusals left the checkpoint as it was
    assert (tmp_path / "ckpt" / "manifest.json").read_text() == manifest
    _refused(base[:-1] + [str(tmp_path / "empty"), "--resume"], 1, ["no checkpoint in"])
    _refused(base[:-2] + ["--resume"], 1, ["--resume", "needs --checkpoint"])
