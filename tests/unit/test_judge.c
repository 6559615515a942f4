/* test_judge: every branch of the window status rule (harness/gate/judge.h). */
#include "gate/judge.h"
#include "t.h"

static struct judge_gate gates[32];
static struct judge_input in;
static struct window_verdict v;

static void reset(void)
{
	memset(gates, 0, sizeof(gates));
	memset(&in, 0, sizeof(in));
	in.warmup_gates = 1;
	in.warm_passed = 1;
	in.gates = gates;
}

static void gate(const char *name, enum gate_status st, int enforced)
{
	gates[in.ngates].name = name;
	gates[in.ngates].status = st;
	gates[in.ngates].enforced = enforced;
	in.ngates++;
}

/* The default window gates, all passing. */
static void defaults(void)
{
	gate("error_rate", GATE_PASS, 1);
	gate("achieved_vs_offered", GATE_PASS, 1);
	gate("stationarity", GATE_PASS, 1);
	gate("throttled", GATE_PASS, 1);
	gate("oom", GATE_PASS, 1);
	gate("generator", GATE_PASS, 1);
	gate("sut_alive", GATE_PASS, 1);
}

static void set(const char *name, enum gate_status st)
{
	size_t i;

	for (i = 0; i < in.ngates; i++)
		if (!strcmp(gates[i].name, name))
			gates[i].status = st;
}

TEST(names_and_parse)
{
	enum window_status s;

	CHECK_STR(window_status_name(WINDOW_ACCEPTED), "accepted");
	CHECK_STR(window_status_name(WINDOW_FAILED), "failed");
	CHECK_STR(window_status_name(WINDOW_REJECTED), "rejected");
	CHECK(window_status_parse("failed", &s) == 0 && s == WINDOW_FAILED);
	CHECK(window_status_parse("accepted", &s) == 0 && s == WINDOW_ACCEPTED);
	CHECK(window_status_parse("rejected", &s) == 0 && s == WINDOW_REJECTED);
	CHECK(window_status_parse("done", &s) == -1);
	CHECK(window_status_parse(NULL, &s) == -1);
}

TEST(classes_fixed_in_registry)
{
	static const char *const outcome[] = { "error_rate", "achieved_vs_offered", "sut_alive",
					       "oom", "stationarity", NULL };
	static const char *const validity[] = { "generator", "throttled", "p99_flat", "p999_flat",
						"gc_steady", "pools_warm", "min_calls",
						"hot_set_touched", "major_faults_equal", NULL };
	size_t i;

	for (i = 0; outcome[i]; i++)
		CHECK(gate_find(outcome[i])->class == GATE_OUTCOME);
	for (i = 0; validity[i]; i++)
		CHECK(gate_find(validity[i])->class == GATE_VALIDITY);
	CHECK_STR(gate_class_name(GATE_OUTCOME), "outcome");
	CHECK_STR(gate_class_name(GATE_VALIDITY), "validity");
	CHECK(judge_reason_class("sut_exited") == GATE_OUTCOME);
	CHECK(judge_reason_class("under_warmed") == GATE_VALIDITY);
	CHECK(judge_reason_class("error_rate:not_evaluable") == GATE_VALIDITY);
	CHECK(judge_reason_class("no_such_gate") == GATE_VALIDITY);
}

TEST(accepted)
{
	reset();
	defaults();
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_ACCEPTED);
	CHECK_STR(v.reasons, "");
	/* No warm-up gates declared: nothing to be under-warmed by. */
	in.warmup_gates = 0;
	in.warm_passed = 0;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_ACCEPTED);
	/* A recorded-only gate never decides. */
	set("generator", GATE_FAIL);
	gates[5].enforced = 0;
	set("error_rate", GATE_NOT_EVALUABLE);
	gates[0].enforced = 0;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_ACCEPTED);
	CHECK_STR(v.reasons, "");
}

TEST(outcome_fail_is_failed)
{
	reset();
	defaults();
	set("achieved_vs_offered", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	CHECK_STR(v.reasons, "achieved_vs_offered");
	set("error_rate", GATE_FAIL);
	set("stationarity", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	CHECK_STR(v.reasons, "error_rate,achieved_vs_offered,stationarity");
	reset();
	defaults();
	set("oom", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
}

TEST(sut_exited_is_failed)
{
	reset();
	defaults();
	in.sut_exited = 1;
	in.warm_passed = 0; /* died during warm-up: not under-warmed */
	set("sut_alive", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	CHECK_STR(v.reasons, "sut_exited,sut_alive");
}

/* A window in which requests were due and none was answered is failed
 * whatever gates the spec lists (here: none failing, achieved_vs_offered
 * and error_rate not even listed): no latency, no acceptance. */
TEST(no_answer_is_failed)
{
	reset();
	defaults();
	in.no_answer = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	CHECK_STR(v.reasons, "no_answer");
	CHECK(judge_reason_class("no_answer") == GATE_OUTCOME);
	/* A void measurement stays void (the generator sent nothing, say). */
	set("generator", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "no_answer,generator");
}

TEST(validity_wins)
{
	reset();
	defaults();
	set("generator", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "generator");
	/* Both kinds fail: the measurement is void. */
	set("error_rate", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK(v.validity_fail && v.outcome_fail);
	CHECK_STR(v.reasons, "error_rate,generator");
	/* Even against a dead implementation. */
	in.sut_exited = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "sut_exited,error_rate,generator");
	/* throttled is a validity gate (our own CPU limit). */
	reset();
	defaults();
	set("throttled", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
}

TEST(under_warmed_and_drift)
{
	reset();
	defaults();
	in.warm_passed = 0;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "under_warmed");
	set("achieved_vs_offered", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "under_warmed,achieved_vs_offered");
	reset();
	defaults();
	in.host_drift = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "host_drift");
	/* A failed reset voids the window, even beside an outcome failure. */
	reset();
	defaults();
	in.reset_failed = 1;
	in.sut_exited = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "reset_failed,sut_exited");
	CHECK(judge_reason_class("reset_failed") == GATE_VALIDITY);
}

/* The discard_s head's flatness gates: recorded only unless enforced;
 * enforced, a failure is validity (head:NAME) and wins over an outcome
 * failure; not evaluable voids the window unless the implementation died. */
TEST(head_gates)
{
	struct judge_gate h[2] = { { "p99_flat", GATE_FAIL, 0 }, { "p999_flat", GATE_PASS, 0 } };

	reset();
	defaults();
	in.nhead = 2;
	in.head = h;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_ACCEPTED);
	CHECK_STR(v.reasons, "");
	h[0].enforced = h[1].enforced = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED && v.validity_fail);
	CHECK_STR(v.reasons, "head:p99_flat");
	set("error_rate", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "head:p99_flat,error_rate");
	reset();
	defaults();
	h[0].status = GATE_NOT_EVALUABLE;
	in.nhead = 2;
	in.head = h;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "head:p99_flat:not_evaluable");
	in.sut_exited = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	in.nhead = 0;
	in.head = NULL;
}

/* A lost load agent and a clock beyond max_offset_ms void the window,
 * over an outcome gate's failure too (validity wins). */
TEST(agent_lost_and_clock_offset)
{
	reset();
	defaults();
	in.agent_lost = 1;
	set("error_rate", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "agent_lost,error_rate");
	reset();
	defaults();
	in.clock_offset = 1;
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "clock_offset");
	CHECK(judge_reason_class("agent_lost") == GATE_VALIDITY);
	CHECK(judge_reason_class("clock_offset") == GATE_VALIDITY);
}

TEST(not_evaluable)
{
	/* Alone: the window could not be judged, so it is void. */
	reset();
	defaults();
	set("stationarity", GATE_NOT_EVALUABLE);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
	CHECK_STR(v.reasons, "stationarity:not_evaluable");
	/* With an outcome failure it does not hide the failure. */
	set("achieved_vs_offered", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	CHECK_STR(v.reasons, "achieved_vs_offered,stationarity:not_evaluable");
	/* Nor with a dead implementation. */
	reset();
	defaults();
	in.sut_exited = 1;
	set("generator", GATE_NOT_EVALUABLE);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_FAILED);
	CHECK_STR(v.reasons, "sut_exited,generator:not_evaluable");
	/* But a validity failure still wins over both. */
	set("throttled", GATE_FAIL);
	judge_window(&in, &v);
	CHECK(v.status == WINDOW_REJECTED);
}

TEST(reasons_truncate)
{
	static const char long_name[] = "a_gate_name_that_is_long_enough_to_fill_the_buffer_quickly";
	size_t i;

	/* 30 x 73 characters overflow the 1024 of reasons. */
	reset();
	for (i = 0; i < 30; i++)
		gate(long_name, GATE_NOT_EVALUABLE, 1);
	judge_window(&in, &v);
	CHECK(strlen(v.reasons) < sizeof(v.reasons));
	CHECK(strlen(v.reasons) > 900);
	CHECK(v.status == WINDOW_REJECTED);
}

int main(void)
{
	RUN(names_and_parse);
	RUN(classes_fixed_in_registry);
	RUN(accepted);
	RUN(outcome_fail_is_failed);
	RUN(sut_exited_is_failed);
	RUN(validity_wins);
	RUN(under_warmed_and_drift);
	RUN(no_answer_is_failed);
	RUN(head_gates);
	RUN(agent_lost_and_clock_offset);
	RUN(not_evaluable);
	RUN(reasons_truncate);
	return t_done();
}
