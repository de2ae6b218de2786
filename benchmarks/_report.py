"""How every benchmark driver reports: one JSON object on stdout and, with
--out, the same text in a file (benchmarks/results/ keeps the latest)."""
import json


def emit(result, out=None):
    """Print `result` as indented JSON; also write it to `out` when given."""
    text = json.dumps(result, indent=1)
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text + "\n")
    return text


def worker_result(argv, env, timeout=600):
    """Run a worker job and return the JSON of its `RESULT {...}` line (rank 0
    prints it); RuntimeError with the job's output when there is none."""
    import subprocess
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"no result from {' '.join(argv[:6])} ... (rc {proc.returncode}):\n"
                       f"{proc.stdout}\n{proc.stderr}")


def rounds_parser(reps):
    """The arguments of a driver that times a worker job (--worker: be it) in
    rounds of `iters` operations, each the median of `reps` repetitions."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=reps)
    return ap


def driver_parser(reps, hosts=False):
    """The arguments every driver of a worker job shares: --worker (be the
    job), --reps (repetitions, `reps` by default), --out (emit's file) and,
    where it can run across emulated hosts, --hosts (0: one host)."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--reps", type=int, default=reps)
    if hosts:
        ap.add_argument("--hosts", type=int, default=0)
    ap.add_argument("--out")
    return ap
