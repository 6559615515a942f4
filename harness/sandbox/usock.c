/*
 * usock: the bound pathname unix sockets of every network namespace
 * (see usock.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/usock.h"
#include "base/util.h"

struct paths {
	char **v;
	size_t n, alloc;
};

static void add_path(struct paths *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i], path))
			return;
	XGROW(p->v, p->alloc, p->n + 2);
	p->v[p->n++] = xstrdup(path);
	p->v[p->n] = NULL;
}

/*
 * One /proc/.../net/unix: "Num RefCount Protocol Flags Type St Inode
 * Path" a line, the header first; the path (absent when unbound, "@..."
 * when abstract) is the rest of the line after the seventh field.
 */
static int read_list(const char *file, struct paths *p)
{
	FILE *f = fopen(file, "re");
	char line[4096 + 128];
	int field;
	char *s;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (s = line, field = 0; *s && field < 7; field++) {
			while (*s == ' ')
				s++;
			while (*s && *s != ' ')
				s++;
		}
		while (*s == ' ')
			s++;
		if (field == 7 && *s == '/')
			add_path(p, s);
	}
	fclose(f);
	return 0;
}

/* Is ino among the namespaces read already? If not, it is now. */
static int seen_ns(ino_t **v, size_t *n, size_t *alloc, ino_t ino)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == ino)
			return 1;
	XGROW(*v, *alloc, *n + 1);
	(*v)[(*n)++] = ino;
	return 0;
}

char **usock_bound(void)
{
	struct paths p = { NULL, 0, 0 };
	struct sbuf file = SBUF_INIT;
	ino_t *ns = NULL;
	size_t nns = 0, ans = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	XGROW(p.v, p.alloc, 1);
	p.v[0] = NULL;
	if (read_list("/proc/self/net/unix", &p)) {
		error("sandbox: /proc/self/net/unix: %s", strerror(errno));
		strv_free(p.v);
		return NULL;
	}
	if (!stat("/proc/self/ns/net", &st))
		seen_ns(&ns, &nns, &ans, st.st_ino);
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		sbuf_reset(&file);
		sbuf_addf(&file, "/proc/%s/ns/net", e->d_name);
		if (stat(file.buf, &st) || seen_ns(&ns, &nns, &ans, st.st_ino))
			continue;
		sbuf_reset(&file);
		sbuf_addf(&file, "/proc/%s/net/unix", e->d_name);
		read_list(file.buf, &p);   /* gone meanwhile: nothing of it to mask */
	}
	if (d)
		closedir(d);
	free(ns);
	sbuf_release(&file);
	return p.v;
}
