/* svgpng: SVG to PNG through rsvg-convert (svgpng.h). */
#include "base/svgpng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

int svg_to_png(const char *svg, size_t len, const char *out_path)
{
	const char *tmpdir = getenv("TMPDIR");
	struct sbuf tmp = SBUF_INIT;
	char *argv[7];
	int fd = -1, status, ret = -1, n = 0;
	pid_t pid;

	sbuf_addf(&tmp, "%s/harness-chart-XXXXXX.svg", tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemps(tmp.buf, 4);
	if (fd < 0) {
		error("cannot create a temporary file %s: %s", tmp.buf, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (write_file(tmp.buf, svg, len))
		goto out;
	argv[n++] = "rsvg-convert";
	argv[n++] = "--format=png";
	if (out_path) {
		argv[n++] = "-o";
		argv[n++] = (char *)out_path;
	}
	argv[n++] = tmp.buf;
	argv[n] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		error("rsvg-convert: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			error("rsvg-convert: waitpid: %s", strerror(errno));
			goto out;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		error("rsvg-convert not found: install it (Debian package librsvg2-bin)");
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		error("rsvg-convert failed (status %d) writing %s", status,
		      out_path ? out_path : "standard output");
		goto out;
	}
	ret = 0;
out:
	if (*tmp.buf && fd < 0)
		unlink(tmp.buf);
	sbuf_release(&tmp);
	return ret;
}
