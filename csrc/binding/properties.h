/*
 * properties.h -- one read-only property of a getset table: its name, its
 * getter and its docstring (BCLPY_DOC_PROP_<CLASS>_<NAME>, generated from
 * the property's entry in spec/).
 */
#ifndef BCLPY_PROPERTIES_H
#define BCLPY_PROPERTIES_H

#define BCLPY_PROPERTY(name, get, doc) { name, (getter)(get), NULL, (doc), NULL }

#endif /* BCLPY_PROPERTIES_H */
