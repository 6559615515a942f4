/*
 * spec_internal: what the spec*.c files share and nobody else uses.
 *
 *   spec_yaml.c      bytes -> a small node tree with line/column (libyaml)
 *   spec_table.c     the tables of keys: one source for the validator,
 *                    `harness schema` and the reference test
 *   spec_read.c      scalar readers, key paths, did-you-mean
 *   spec_validate.c  node tree + tables -> struct spec, every error collected
 *   spec_check.c     checks across keys, paths, body files
 *   spec_deps.c      dependencies: names, {dep.NAME.port} references
 *   spec_vars.c      template variables, {NAME} references, http and tls
 *   spec_gates.c     gates: map and gate lists against the gate registry
 *   spec_schema.c    tables -> JSON Schema
 *   spec.c           the public API (spec.h), hash, rungs, {port}
 */
#ifndef HARNESS_SPEC_INTERNAL_H
#define HARNESS_SPEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

/* ------------------------------------------------------------ diagnostics */

/* One problem: msg is "key.path: what is wrong" (or "yaml: ..."). */
struct spec_diag {
	int line, col;
	char *msg;
};

struct spec_diags {
	struct spec_diag *v;
	size_t n, alloc;
	size_t more;             /* errors beyond SPEC_MAX_DIAGS, counted only */
};

void spec_diag_add(struct spec_diags *d, int line, int col, const char *path,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Sort by position (stable) and append "FILE:LINE:COL: msg\n" lines to sb. */
void spec_diags_format(struct spec_diags *d, const char *file, struct sbuf *sb);
void spec_diags_release(struct spec_diags *d);

/* Most errors printed for one spec; beyond it one closing line counts the rest. */
#define SPEC_MAX_DIAGS 100

/* -------------------------------------------------------------- node tree */

enum ynode_kind { Y_SCALAR, Y_MAP, Y_SEQ };

struct ynode {
	enum ynode_kind kind;
	int line, col;           /* 1-based, where the node starts */
	/* Y_SCALAR */
	char *str;               /* NUL-terminated (may hold NULs: see len) */
	size_t len;
	int plain;               /* unquoted, untagged: numbers/bools/null live here */
	/* Y_MAP: keys[i] -> vals[i] (keys are scalars); Y_SEQ: vals[] */
	struct ynode **keys, **vals;
	size_t n, alloc;
};

/* A parsed document. Nodes are owned by the document (aliases share them). */
struct ydoc {
	struct ynode *root;      /* NULL for an empty document */
	struct ynode **all;
	size_t nall, alloc;
};

#define SPEC_MAX_BYTES (1024 * 1024)

/* Parse YAML text into doc; problems go to d. Returns 0 or -1. */
int ydoc_parse(struct ydoc *doc, const char *text, size_t len, struct spec_diags *d);
void ydoc_release(struct ydoc *doc);

/* Scalar helpers. */
int ynode_is_null(const struct ynode *n);
/* Describe a node for "got ..." in messages: "a list", "a map", "null", "\"abc\"" */
void ynode_describe(const struct ynode *n, struct sbuf *sb);

/* ------------------------------------------------------------- the tables */

enum ftype {
	FT_INT,      /* integer in [min, max], stored as int */
	FT_U64,      /* non-negative integer, stored as uint64_t */
	FT_NUM,      /* number, stored as double */
	FT_MB,       /* number of MiB, stored as uint64_t bytes */
	FT_BOOL,     /* true | false, stored as int */
	FT_STR,      /* a string (quoted or plain, not a number/bool/null) */
	FT_SCALAR,   /* a string or a number, kept as written */
	FT_ENUM,     /* one of enums[], stored as int index */
	FT_ENUMSET,  /* a list of enums[], stored as unsigned bit set (1 << i) */
	FT_ARGV,     /* a non-empty list of scalars -> NULL-terminated char ** */
	FT_KV,       /* a map string -> scalar -> struct kv[] + count */
	FT_SIGNALS,  /* a map name -> JSON pointer -> struct spec_signal[] */
	FT_OBJ,      /* a nested map described by sub[] */
	FT_LIST,     /* a list of maps described by sub[] */
	FT_GATELIST, /* a list of gate names (phase in `phase`) */
	FT_GATES,    /* the gates: map, checked against the gate registry */
	FT_INTLIST,  /* whole numbers in [min, max] (a list, or one number) -> int[] + count */
	FT_NAMED,    /* a map name -> map described by sub[] -> an array of elsize
			elements + count, each with its name (char *, the key, an
			identifier [A-Za-z_][A-Za-z0-9_]*) as its first member */
};

/* flags */
#define F_REQ      0x0001  /* required */
#define F_MIN      0x0002  /* has a lower bound */
#define F_MINX     0x0004  /* ... exclusive */
#define F_MAX      0x0008  /* has an upper bound */
#define F_MAXX     0x0010  /* ... exclusive */
#define F_PORT     0x0020  /* may contain {port} */
#define F_IDENT    0x0040  /* [A-Za-z0-9_.-]+ */
#define F_URL      0x0080  /* http:// or https:// */
#define F_CPUS     0x0100  /* a cpu list "0-2,4" */
#define F_PATH     0x0200  /* an HTTP path starting with '/' */
#define F_TOKEN    0x0400  /* an HTTP token (method) */
#define F_PRESENT  0x0800  /* FT_OBJ: sets the int at off2 to 1 when given */
#define F_DEF      0x1000  /* has a default (dnum / dstr) */
#define F_NOSTORE  0x2000  /* validated, not stored */
#define F_ENVNAME  0x4000  /* FT_KV: keys are environment variable names */
#define F_HDRNAME  0x8000  /* FT_KV: keys are HTTP header names */
#define F_REQ_NOCTR 0x10000 /* required unless the map has `container` (start) */

struct field {
	const char *key;
	enum ftype type;
	unsigned flags;
	size_t off;              /* offset in the containing struct */
	size_t off2;             /* count (lists, maps), length (FT_STR body), presence */
	double min, max;
	double dnum;             /* default (numbers, bools, enum index) */
	const char *dstr;        /* default (strings); documentation for computed ones */
	const char *const *enums;
	const struct field *sub; /* FT_OBJ, FT_LIST */
	size_t elsize;           /* FT_LIST element size */
	size_t min_items;        /* FT_LIST, FT_ARGV */
	unsigned phase;          /* FT_GATELIST */
	const char *help;
};

#define FIELD_END { NULL, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0, NULL }

extern const struct field spec_root_fields[];

/* The validator: node tree -> s (whose path/base_dir are set). */
void spec_validate(struct spec *s, const struct ynode *root, struct spec_diags *d,
		   struct spec_diags *refuse, struct spec_diags *warn);

/* ------------------------------------------------- validator internals */

struct vctx {
	struct spec *s;
	struct spec_diags *d;
	const struct ynode *root;
	struct spec_diags *refuse;  /* plans that can never pass (spec.refusals) */
	struct spec_diags *warn;    /* spec.warnings */
};

/* The node at a key path ("stages.ladder.step", "implementations[1].env"). */
const struct ynode *spec_node_at(const struct ynode *root, const char *path);
/* Position of the deepest node that exists along path (1:1 at worst). */
void spec_path_pos(const struct vctx *v, const char *path, int *line, int *col);
#define VERR(v, n, path, ...) spec_diag_add((v)->d, (n)->line, (n)->col, (path), __VA_ARGS__)

/* Scalar readers: 0 on success, otherwise report (path: must be ...) and -1. */
int spec_read_number(struct vctx *v, const struct ynode *n, const char *path, double *out);
int spec_read_bool(struct vctx *v, const struct ynode *n, const char *path, int *out);
/* A plain identifier [A-Za-z0-9_.-]+ */
int spec_is_ident(const char *s);
/* Range check; is_int selects how bounds are printed. */
int spec_check_range(struct vctx *v, const struct ynode *n, const char *path, double x,
		     unsigned flags, double min, double max, int is_int);
/* Edit distance with adjacent transpositions (for did-you-mean). */
size_t spec_edit_distance(const char *a, const char *b);
/* The closest of cands[0..n) to word within a small edit distance, or NULL. */
const char *spec_suggest(const char *word, const char *const *cands, size_t n);

extern const char *const spec_default_warmup_gates[];
extern const char *const spec_default_head_gates[];
extern const char *const spec_default_window_gates[];

/* spec_read.c: key paths and lookups (malloc'd paths; nodes owned by the doc). */
char *spec_join_path(const char *parent, const char *key);
char *spec_index_path(const char *parent, size_t i);
const struct ynode *spec_map_get(const struct ynode *m, const char *key);
int spec_map_has(const struct ynode *m, const char *key);
int spec_token_ok(const char *s);    /* an HTTP token (method, header name) */
int spec_envname_ok(const char *s);  /* [A-Za-z_][A-Za-z0-9_]* */
/* A string value: strict (FT_STR) refuses plain numbers and booleans;
 * flags select the shared checks ({port}, F_IDENT, F_URL, ...). */
int spec_read_string(struct vctx *v, const struct ynode *n, const char *path,
		     unsigned flags, int strict, char **out, size_t *len);

/* spec_check.c: problems at a key path (positioned at its deepest node). */
void spec_err_at(struct vctx *v, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int spec_given(struct vctx *v, const char *path);
/* The same into v->refuse (a well-formed plan that can never pass) and
 * v->warn ("warning: key.path: ..."); see spec.h, refusals and warnings. */
void spec_refuse_at(struct vctx *v, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void spec_warn_at(struct vctx *v, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Entry i of the list LIST (entries of size bytes, its name a char * at
 * name_off, NULL when missing) has the name of an earlier entry: one error
 * at LIST[i].name naming that entry. */
void spec_unique_name(struct vctx *v, const void *entries, size_t size, size_t name_off,
		      size_t i, const char *list);
void spec_check_all(struct vctx *v);
/* base/rel lexically normalised (malloc'd). */
char *spec_resolve(const char *base, const char *rel);
/* Read a referenced file of at most max bytes into sb; problems are
 * reported at path, naming the file as_written. 0 or -1. */
int spec_read_ref_file(struct vctx *v, const char *abs, struct sbuf *sb, size_t max,
		       const char *path, const char *as_written);
/* spec_vars.c: workload.vars (kinds, csv files), template references in
 * requests, workload.http / tls against the transport. */
void spec_check_vars(struct vctx *v);
/* spec_deps.c: dependency names, references and health (see there). */
void spec_check_deps(struct vctx *v);
/* spec_arms.c: implementations' health (url or tcp), fixed port, paths
 * and artifact (after the implementations are placed). */
void spec_check_arms(struct vctx *v);
/* spec_gens.c: workload.generators' hosts and binaries. */
void spec_check_generators(struct vctx *v);
/* spec_hosts.c: implementations[].host and dependencies[].host (an ssh
 * destination, its binary, and what cannot run there yet). */
void spec_check_hosts(struct vctx *v);
/* spec_ctr.c: implementations[].container and dependencies[].container
 * (one of start or container, an image or a Containerfile, its hash). */
void spec_check_containers(struct vctx *v);

/* spec_gates.c: the gates: map, the gate lists, defaults and requirements. */
void spec_read_gatelist(struct vctx *v, const struct field *f, void *base,
			const struct ynode *n, const char *path);
void spec_read_gates(struct vctx *v, const struct ynode *n, const char *path);
void spec_finish_gates(struct vctx *v);
/* After spec_finish_gates: a gate whose min_points the warm-up's trailing
 * seconds or a stage's measured seconds can never give is an error. */
void spec_check_gate_points(struct vctx *v);

#endif
