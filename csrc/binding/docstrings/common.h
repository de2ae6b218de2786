/*
 * docstrings/common.h -- the pieces every docstring of pybcl._core repeats:
 * CPython's text-signature line and the numpydoc section headers (each
 * after a blank line).
 */
#ifndef BCLPY_DOC_COMMON_H
#define BCLPY_DOC_COMMON_H

/* "name(args)" -> the signature line inspect.signature() reads. */
#define BCLPY_SIG(sig) sig "\n--\n\n"

#define BCLPY_PARAMETERS "\nParameters\n----------\n"
#define BCLPY_RETURNS "\nReturns\n-------\n"
#define BCLPY_RAISES "\nRaises\n------\n"
#define BCLPY_EXAMPLES "\nExamples\n--------\n"

/* The Raises entry of a collective constructor: every rank raises `types`. */
#define BCLPY_RAISES_COLLECTIVE_ARGS(types) \
    BCLPY_RAISES types "\n    On every rank, for a bad or disagreeing argument.\n"

#endif /* BCLPY_DOC_COMMON_H */
