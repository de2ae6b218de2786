"""A job the save/load tests launch (python roundtrip_job.py MODE ...):

  save DIR [big]     build the containers (saved_contents.build) and save
                     each to DIR/NAME
  check DIR...       load every file of each DIR at this job's rank count
                     and check its contents; rank 0 prints each problem

Every rank ends by printing "<ok RANK>"."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pybcl  # noqa: E402

import saved_contents  # noqa: E402


def main(argv):
    mode, folders = argv[0], argv[1:]
    if mode == "save":
        for name, c in saved_contents.build(big="big" in folders[1:]).items():
            c.save(os.path.join(folders[0], name))
            c.close()
    else:
        for folder in folders:
            for name in sorted(os.listdir(folder)):
                c = pybcl.load(os.path.join(folder, name))
                problem = saved_contents.check(name, c)
                if problem and pybcl.rank() == 0:
                    print(f"PROBLEM {folder}/{name}: {problem}", flush=True)
                c.close()
    print(f"<ok {pybcl.rank()}>", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
