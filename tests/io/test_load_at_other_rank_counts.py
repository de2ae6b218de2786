"""Files saved at P ranks load at Q ranks with the same contents, for every
container kind and element type: jobs save at P = 1, 2, 3, 4, and jobs at
Q = 1, 2, 3 load the files saved at every other rank count (P = Q is
test_save_load.py's, in every pass).  The transports take turns so that
each of shm, rma and rma-node saves and loads (a job per pair would be 21
jobs).  The files saved at 2 and 3 ranks add containers of several row
groups per rank, so re-blocked loads begin and end inside parts."""
import os

import pytest

from launch import job_env, run_python, ROOT

JOB = f"{ROOT}/tests/io/roundtrip_job.py"
SAVES = [(1, "rma"), (2, "shm"), (3, "rma-node"), (4, "rma")]
LOADS = [(1, "rma-node"), (2, "rma"), (3, "shm")]


def _run(nprocs, transport, args):
    if transport == "shm" and "-hosts" in os.environ.get("PYBCL_TEST_MPIEXEC_ARGS", ""):
        transport = "rma"            # the jobs span hosts (the multi-host pass): no shm
    r = run_python([JOB, *args], nprocs, timeout=600,
                   env=job_env(PYBCL_TRANSPORT=transport))
    out = r.stdout + r.stderr
    assert r.returncode == 0 and r.stdout.count("<ok ") == nprocs, out
    return r.stdout


@pytest.mark.serial_only
def test_files_saved_at_p_ranks_load_at_q_ranks(tmp_path):
    folders = {}
    for p, transport in SAVES:
        folder = tmp_path / f"saved_at_{p}"
        folder.mkdir()
        _run(p, transport, ["save", str(folder)] + (["big"] if p in (2, 3) else []))
        folders[p] = str(folder)
    problems = []
    for q, transport in LOADS:
        out = _run(q, transport, ["check"] + [f for p, f in folders.items() if p != q])
        problems += [(q, line) for line in out.splitlines() if line.startswith("PROBLEM")]
    assert not problems, problems
