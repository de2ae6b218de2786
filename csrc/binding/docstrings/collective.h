/*
 * docstrings/collective.h -- docstrings of the agreement functions
 * (collective_py.c): the Python package's collectives agree on their
 * arguments before the collective step (comm/bcl_agree.h).
 * Text-signature form: "name(args)\n--\n\n" (see README.md in this folder).
 */
#ifndef BCLPY_DOC_COLLECTIVE_H
#define BCLPY_DOC_COLLECTIVE_H

#define BCLPY_DOC_COLLECTIVE_FAILED \
    "collective_failed(what, /)\n--\n\n" \
    "Internal, collective: this rank's arguments to the collective `what`\n" \
    "(str, e.g. 'allreduce()') were bad; take part in its agreement as\n" \
    "failed so the peers raise too instead of waiting.  The caller then\n" \
    "raises its own exception."

#define BCLPY_DOC_AGREE \
    "agree(what, names, values, /)\n--\n\n" \
    "Internal, collective: check that every rank passed the same int\n" \
    "`values` (a tuple) for the argument `names` (a tuple of str, as many) of\n" \
    "the collective `what`; on any difference or failure raise on every rank\n" \
    "naming the argument.  Initialises pybcl if nobody has yet."

#define BCLPY_DOC_ALLGATHER_BYTES \
    "allgather_bytes(data)\n--\n\n" \
    "Internal, collective: a list of every rank's bytes `data`, in rank\n" \
    "order, gathered on pybcl's own communicator (never the user's).  The\n" \
    "caller agrees on the call first.  Raises TypeError if data is not\n" \
    "bytes, pybcl.Error if the total passes 2 GiB (on every rank)."
#define BCLPY_ARGS_ALLGATHER_BYTES { "data" }

#endif /* BCLPY_DOC_COLLECTIVE_H */
