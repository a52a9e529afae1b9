/*
 * psnrhvs: a small strict JSON reader into a tree, for the JSON the CLI
 * reads back whole (psnrhvs target's search in `psnrhvs report`).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_JSON_TREE_H
#define PSNRHVS_TOOLS_JSON_TREE_H

#include <stddef.h>

typedef enum JsonType {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
} JsonType;

typedef struct JsonValue {
    JsonType type;
    double number;           ///< JSON_NUMBER
    char *string;            ///< JSON_STRING, UTF-8 (a \u0000 ends it early)
    struct JsonValue *items; ///< an array's elements or an object's values
    char **keys;             ///< an object's keys, one per item
    size_t n;
} JsonValue;

/**
 * Parse the whole of buf (RFC 8259; nesting up to 64 deep, a UTF-8 BOM
 * allowed). @return 0, or -1 with one line in err (the byte offset and why)
 * and nothing to free.
 */
int json_parse(JsonValue *v, const char *buf, size_t len, char *err, size_t err_size);

/** The value of key in an object (the first of that name), or NULL. */
const JsonValue *json_get(const JsonValue *obj, const char *key);

void json_free(JsonValue *v);

#endif /* PSNRHVS_TOOLS_JSON_TREE_H */
