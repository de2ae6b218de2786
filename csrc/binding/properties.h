/*
 * properties.h -- docstrings of the containers' read-only
 * properties (the getset tables of the binding files): a summary line and
 * one example, in the numpydoc layout of the methods' docstrings.
 */
#ifndef BCLPY_DOC_PROPERTIES_H
#define BCLPY_DOC_PROPERTIES_H

#define BCLPY_DOC_PROP(summary, example) \
    summary "\n\nExamples\n--------\n>>> " example

/* One read-only property of a getset table. */
#define BCLPY_PROPERTY(name, get, summary, example) \
    { name, (getter)(get), NULL, BCLPY_DOC_PROP(summary, example), NULL }

#endif /* BCLPY_DOC_PROPERTIES_H */
