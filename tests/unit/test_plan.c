/*
 * test_plan.c — unit tests for plan building (src/plan/plan.c, dump.c):
 * dependency inference from byte ranges (RAW, WAR, WAW), dropped steps,
 * explicit dependencies, tags and phases, scratch reservation, and the
 * EXPLAIN-style dump.
 */
#define _GNU_SOURCE
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SEND IC_BUF_SEND
#define RECV IC_BUF_RECV
#define SCR IC_BUF_SCRATCH

/* True if step s of pl depends on exactly the listed steps (any order,
 * no duplicates); -1 ends the list. */
static int deps_are(const ic_plan_t *pl, long s, const long *want)
{
    if (s < 0 || (size_t)s >= pl->nsteps)
        return 0;
    const ic_step_t *st = &pl->steps[s];
    size_t nw = 0;
    while (want[nw] >= 0)
        nw++;
    if (st->ndeps != nw)
        return 0;
    for (size_t i = 0; i < nw; i++) {
        int found = 0;
        for (uint32_t d = 0; d < st->ndeps; d++)
            found += pl->deps[st->dep_first + d] == (uint32_t)want[i];
        if (found != 1)
            return 0;
    }
    return 1;
}

#define DEPS(pl, s, ...) deps_are((pl), (s), (const long[]){__VA_ARGS__, -1})
#define NODEPS(pl, s) deps_are((pl), (s), (const long[]){-1})

static void fresh(ic_plan_t *pl) { ic_plan_init(pl, 0, 4, IC_COLL_ALLREDUCE); }

static void test_basic_hazards(void)
{
    ic_plan_t pl;

    /* RAW: receive into X, then send from X. */
    fresh(&pl);
    long a = ic_plan_recv(&pl, 1, 0, ic_loc(RECV, 0), 16);
    long b = ic_plan_send(&pl, 2, 0, ic_loc(RECV, 0), 16);
    CHECK(a == 0 && b == 1, "indices %ld %ld", a, b);
    CHECK(NODEPS(&pl, a), "first step has deps");
    CHECK(DEPS(&pl, b, a), "RAW: send does not depend on recv");
    ic_plan_release(&pl);

    /* WAR: send from X, then receive into X. */
    fresh(&pl);
    a = ic_plan_send(&pl, 1, 0, ic_loc(SCR, 8), 8);
    b = ic_plan_recv(&pl, 2, 0, ic_loc(SCR, 8), 8);
    CHECK(DEPS(&pl, b, a), "WAR: recv does not depend on send");
    ic_plan_release(&pl);

    /* WAW: two receives into overlapping bytes. */
    fresh(&pl);
    a = ic_plan_recv(&pl, 1, 0, ic_loc(RECV, 0), 16);
    b = ic_plan_recv(&pl, 2, 0, ic_loc(RECV, 12), 16);
    CHECK(DEPS(&pl, b, a), "WAW: partial overlap not detected");
    ic_plan_release(&pl);

    /* Disjoint and adjacent ranges of one buffer: independent. */
    fresh(&pl);
    a = ic_plan_recv(&pl, 1, 0, ic_loc(RECV, 0), 16);
    b = ic_plan_send(&pl, 2, 0, ic_loc(RECV, 16), 16);
    long c = ic_plan_recv(&pl, 3, 0, ic_loc(RECV, 32), 4);
    long d = ic_plan_send(&pl, 3, 1, ic_loc(RECV, 1000), 4);
    CHECK(NODEPS(&pl, b) && NODEPS(&pl, c) && NODEPS(&pl, d), "disjoint ranges got deps");
    /* A one-byte overlap at the end counts. */
    long e = ic_plan_send(&pl, 1, 2, ic_loc(RECV, 15), 2);
    CHECK(DEPS(&pl, e, a), "one-byte overlap missed");
    ic_plan_release(&pl);

    /* Same offsets in different buffers: independent. */
    fresh(&pl);
    a = ic_plan_recv(&pl, 1, 0, ic_loc(SCR, 0), 16);
    b = ic_plan_send(&pl, 2, 0, ic_loc(RECV, 0), 16);
    c = ic_plan_send(&pl, 2, 1, ic_loc(SEND, 0), 16);
    d = ic_plan_recv(&pl, 2, 2, ic_loc(RECV, 64), 16);
    CHECK(NODEPS(&pl, b) && NODEPS(&pl, c) && NODEPS(&pl, d), "different buffers got deps");
    ic_plan_release(&pl);

    /* Read after read: no dependency (two sends, a copy's source). */
    fresh(&pl);
    a = ic_plan_send(&pl, 1, 0, ic_loc(SEND, 0), 32);
    b = ic_plan_send(&pl, 2, 0, ic_loc(SEND, 0), 32);
    c = ic_plan_copy(&pl, ic_loc(SEND, 8), ic_loc(RECV, 0), 8);
    CHECK(NODEPS(&pl, b) && NODEPS(&pl, c), "read-read got deps");
    /* ...but a send of the copy's destination depends on the copy only. */
    d = ic_plan_send(&pl, 3, 0, ic_loc(RECV, 0), 8);
    CHECK(DEPS(&pl, d, c), "send of a copy's destination");
    ic_plan_release(&pl);
}

static void test_copy_reduce(void)
{
    ic_plan_t pl;

    /* COPY reads src, writes dst. */
    fresh(&pl);
    long a = ic_plan_recv(&pl, 1, 0, ic_loc(SCR, 0), 8);
    long b = ic_plan_copy(&pl, ic_loc(SCR, 0), ic_loc(RECV, 0), 8);
    long c = ic_plan_send(&pl, 1, 1, ic_loc(SCR, 0), 8); /* read-read with b */
    long d = ic_plan_recv(&pl, 1, 2, ic_loc(SCR, 0), 8); /* WAR with b and c, WAW with a */
    CHECK(DEPS(&pl, b, a), "copy after recv");
    CHECK(DEPS(&pl, c, a), "send after recv and copy");
    CHECK(DEPS(&pl, d, c, b, a), "recv after recv, copy, send: %u deps",
          pl.steps[d].ndeps);
    ic_plan_release(&pl);

    /* REDUCE without IC_RED_DST_LEFT: src is only read. */
    fresh(&pl);
    a = ic_plan_reduce(&pl, ic_loc(SCR, 0), ic_loc(RECV, 0), 16, 0);
    b = ic_plan_send(&pl, 1, 0, ic_loc(SCR, 0), 16);
    c = ic_plan_send(&pl, 1, 1, ic_loc(RECV, 0), 16);
    d = ic_plan_recv(&pl, 1, 2, ic_loc(SCR, 0), 16);
    CHECK(a == 0 && NODEPS(&pl, b), "reduce src read-read got a dep");
    CHECK(DEPS(&pl, c, a), "send of reduce dst");
    CHECK(DEPS(&pl, d, b, a), "recv into reduce src (WAR)");
    CHECK(pl.steps[a].kind == IC_STEP_REDUCE && pl.steps[a].flags == 0, "reduce flags");
    ic_plan_release(&pl);

    /* With IC_RED_DST_LEFT the source counts as written too. */
    fresh(&pl);
    a = ic_plan_reduce(&pl, ic_loc(SCR, 0), ic_loc(RECV, 0), 16, IC_RED_DST_LEFT);
    b = ic_plan_send(&pl, 1, 0, ic_loc(SCR, 4), 4);
    c = ic_plan_copy(&pl, ic_loc(SCR, 32), ic_loc(SCR, 64), 16);
    CHECK(DEPS(&pl, b, a), "DST_LEFT: read of src after reduce");
    CHECK(NODEPS(&pl, c), "DST_LEFT: unrelated scratch");
    CHECK(pl.steps[a].flags == IC_RED_DST_LEFT, "DST_LEFT flag kept");
    ic_plan_release(&pl);

    /* A reduce after a recv into its source depends on it (RAW). */
    fresh(&pl);
    a = ic_plan_recv(&pl, 1, 0, ic_loc(SCR, 0), 16);
    b = ic_plan_recv(&pl, 2, 0, ic_loc(SCR, 16), 16);
    c = ic_plan_reduce(&pl, ic_loc(SCR, 16), ic_loc(SCR, 0), 16, 0);
    CHECK(DEPS(&pl, c, b, a), "reduce after two recvs");
    ic_plan_release(&pl);
}

static void test_dropped(void)
{
    ic_plan_t pl;
    fresh(&pl);
    CHECK(ic_plan_copy(&pl, ic_loc(SEND, 0), ic_loc(RECV, 0), 0) == -1, "0-byte copy kept");
    CHECK(ic_plan_reduce(&pl, ic_loc(SCR, 0), ic_loc(RECV, 0), 0, 0) == -1,
          "0-byte reduce kept");
    CHECK(ic_plan_copy(&pl, ic_loc(RECV, 8), ic_loc(RECV, 8), 8) == -1, "copy src==dst kept");
    CHECK(pl.nsteps == 0 && pl.error == IC_OK, "dropped steps: %zu steps, error %d",
          pl.nsteps, (int)pl.error);
    /* Same buffer, other offset: a real copy. */
    long a = ic_plan_copy(&pl, ic_loc(RECV, 0), ic_loc(RECV, 8), 8);
    CHECK(a == 0 && pl.nsteps == 1, "copy within one buffer dropped");
    /* Zero-byte SEND/RECV are kept and touch no bytes. */
    long b = ic_plan_send(&pl, 1, 0, ic_loc(RECV, 0), 0);
    long c = ic_plan_recv(&pl, 1, 1, ic_loc(RECV, 8), 0);
    CHECK(b == 1 && c == 2 && NODEPS(&pl, b) && NODEPS(&pl, c), "zero-byte send/recv");
    CHECK(pl.steps[b].kind == IC_STEP_SEND && pl.steps[c].kind == IC_STEP_RECV &&
              pl.steps[b].peer == 1,
          "zero-byte step kinds");
    ic_plan_release(&pl);
}

static void test_add_dep(void)
{
    ic_plan_t pl;
    fresh(&pl);
    long a = ic_plan_send(&pl, 1, 0, ic_loc(RECV, 0), 0);
    long b = ic_plan_recv(&pl, 1, 1, ic_loc(RECV, 0), 0);
    CHECK(NODEPS(&pl, b), "zero-byte barrier steps have no inferred deps");
    ic_plan_add_dep(&pl, b, a);
    CHECK(DEPS(&pl, b, a), "explicit dep not added");
    ic_plan_add_dep(&pl, b, a);
    CHECK(DEPS(&pl, b, a), "explicit dep added twice (%u deps)", pl.steps[b].ndeps);
    /* Invalid requests are ignored: before >= step, negative, not last. */
    ic_plan_add_dep(&pl, b, b);
    ic_plan_add_dep(&pl, b, -1);
    ic_plan_add_dep(&pl, -1, a);
    CHECK(DEPS(&pl, b, a), "invalid add_dep changed deps");
    long c = ic_plan_send(&pl, 2, 0, ic_loc(SCR, 0), 0);
    ic_plan_add_dep(&pl, b, a); /* b is no longer last */
    CHECK(DEPS(&pl, b, a) && NODEPS(&pl, c), "add_dep on a non-last step");
    ic_plan_add_dep(&pl, c, b);
    ic_plan_add_dep(&pl, c, a);
    CHECK(DEPS(&pl, c, b, a), "two explicit deps");
    /* An inferred dep is not duplicated by an explicit one. */
    long d = ic_plan_recv(&pl, 1, 2, ic_loc(SCR, 0), 8);
    long e = ic_plan_send(&pl, 1, 3, ic_loc(SCR, 0), 8);
    ic_plan_add_dep(&pl, e, d);
    CHECK(DEPS(&pl, e, d), "inferred + explicit dep duplicated");
    ic_plan_release(&pl);
}

/* The scan stops at a dependency that writes a superset of what the new
 * step touches; without such a step it reaches every conflict. */
static void test_domination(void)
{
    ic_plan_t pl;
    fresh(&pl);
    long a = ic_plan_recv(&pl, 1, 0, ic_loc(RECV, 0), 16);
    long b = ic_plan_recv(&pl, 2, 0, ic_loc(RECV, 0), 16);
    long c = ic_plan_send(&pl, 3, 0, ic_loc(RECV, 0), 16);
    CHECK(DEPS(&pl, b, a), "WAW same range");
    CHECK(DEPS(&pl, c, b), "send after two covering recvs depends on the last only");
    ic_plan_release(&pl);

    fresh(&pl);
    a = ic_plan_recv(&pl, 1, 0, ic_loc(RECV, 0), 8);
    b = ic_plan_recv(&pl, 2, 0, ic_loc(RECV, 8), 8);
    c = ic_plan_send(&pl, 3, 0, ic_loc(RECV, 0), 16);
    CHECK(DEPS(&pl, c, b, a), "send of two halves depends on both");
    ic_plan_release(&pl);
}

static void test_tags_and_extents(void)
{
    ic_plan_t pl;
    fresh(&pl);
    long a = ic_plan_send(&pl, 1, 5, ic_loc(SEND, 0), 4);
    ic_plan_next_phase(&pl);
    long b = ic_plan_recv(&pl, 1, 5, ic_loc(RECV, 100), 4);
    ic_plan_next_phase(&pl);
    ic_plan_next_phase(&pl);
    long c = ic_plan_send(&pl, 1, 7, ic_loc(SEND, 0), 4);
    uint32_t ta = pl.steps[a].tag, tb = pl.steps[b].tag, tc = pl.steps[c].tag;
    CHECK(ta == 5, "phase 0 tag %u", ta);
    CHECK(tb >> IC_TAG_PHASE_SHIFT == 1 && (tb & IC_TAG_MAX_IN_PHASE) == 5,
          "phase 1 tag %#x", tb);
    CHECK(tc >> IC_TAG_PHASE_SHIFT == 3 && (tc & IC_TAG_MAX_IN_PHASE) == 7,
          "phase 3 tag %#x", tc);
    CHECK(ta != tb && (ta & IC_TAG_MAX_IN_PHASE) == (tb & IC_TAG_MAX_IN_PHASE),
          "phases separate equal message tags");
    CHECK(pl.steps[b].peer == 1 && pl.steps[b].dst.buf == RECV && pl.steps[b].dst.off == 100 &&
              pl.steps[b].bytes == 4,
          "recv fields");
    CHECK(pl.buf_bytes[SEND] == 4 && pl.buf_bytes[RECV] == 104 && pl.buf_bytes[SCR] == 0,
          "extents send %zu recv %zu scratch %zu", pl.buf_bytes[SEND], pl.buf_bytes[RECV],
          pl.buf_bytes[SCR]);
    ic_loc_t l = ic_loc_add(ic_loc(SCR, 10), 6);
    CHECK(l.buf == SCR && l.off == 16, "ic_loc_add");
    ic_plan_release(&pl);
    CHECK(pl.steps == NULL && pl.nsteps == 0 && pl.deps == NULL, "release clears");
}

static void test_scratch(void)
{
    ic_plan_t pl;
    fresh(&pl);
    CHECK(pl.scratch_bytes == 0, "fresh scratch");
    size_t sizes[] = {10, 1, 64, 0, 100, 65, 3};
    size_t prev_end = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t before = pl.scratch_bytes;
        size_t off = ic_plan_scratch(&pl, sizes[i]);
        CHECK(off % 64 == 0, "scratch offset %zu not 64-aligned", off);
        CHECK(off >= prev_end, "scratch region %zu overlaps previous end %zu", off, prev_end);
        CHECK(pl.scratch_bytes >= off + sizes[i] && pl.scratch_bytes >= before,
              "scratch_bytes %zu after reserving %zu at %zu", pl.scratch_bytes, sizes[i], off);
        prev_end = off + sizes[i];
    }
    ic_plan_release(&pl);

    /* Build-time arrays are zeroed and freed by finish. */
    fresh(&pl);
    size_t *z = ic_plan_sizes(&pl, 40);
    int zero = z != NULL;
    for (int i = 0; zero && i < 40; i++)
        zero = z[i] == 0;
    CHECK(zero, "ic_plan_sizes not zeroed");
    CHECK(ic_plan_tmp(&pl, 0) != NULL, "ic_plan_tmp(0)");
    CHECK(ic_plan_finish(&pl) == IC_OK && pl.ntmp == 0, "finish");
    ic_plan_release(&pl);
}

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static void test_dump(void)
{
    ic_plan_t pl;
    ic_plan_init(&pl, 1, 3, IC_COLL_ALLREDUCE);
    pl.algo = "rs_ag";
    pl.dtype = IC_INT32;
    pl.op = IC_SUM;
    size_t s = ic_plan_scratch(&pl, 4);
    ic_plan_send(&pl, 2, 1, ic_loc(SEND, 0), 4);
    ic_plan_recv(&pl, 0, 1, ic_loc(SCR, s), 4);
    ic_plan_reduce(&pl, ic_loc(SEND, 4), ic_loc(SCR, s), 4, 0);
    ic_plan_copy(&pl, ic_loc(SCR, s), ic_loc(RECV, 0), 4);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL, "open_memstream");
    if (!f) {
        ic_plan_release(&pl);
        return;
    }
    ic_plan_dump(&pl, f);
    fclose(f);
    CHECK(text && len > 0, "empty dump");
    if (text) {
        char *nl = strchr(text, '\n');
        size_t hl = nl ? (size_t)(nl - text) : strlen(text);
        char head[256];
        snprintf(head, sizeof head, "%.*s", (int)hl, text);
        CHECK(contains(head, "rank 1 of 3") && contains(head, "allreduce") &&
                  contains(head, "rs_ag") && contains(head, "int32") && contains(head, "sum"),
              "header: %s", head);
        CHECK(contains(text, "SEND") && contains(text, "RECV") && contains(text, "REDUCE") &&
                  contains(text, "COPY"),
              "step kinds missing:\n%s", text);
        CHECK(contains(text, "after #1"), "reduce's dep on #1 missing:\n%s", text);
        CHECK(contains(text, "after #2"), "copy's dep on #2 missing:\n%s", text);
        CHECK(contains(text, "scratch+0") && contains(text, "send+4"), "locations:\n%s", text);
        int lines = 0;
        for (const char *p = text; *p; p++)
            lines += *p == '\n';
        CHECK(lines == 5, "%d lines, want header + 4 steps", lines);
    }
    free(text);
    ic_plan_release(&pl);
    CHECK(strcmp(ic_step_kind_name(IC_STEP_REDUCE), "REDUCE") == 0 &&
              strcmp(ic_buf_name(IC_BUF_SCRATCH), "scratch") == 0,
          "names");
}

int main(void)
{
    test_basic_hazards();
    test_copy_reduce();
    test_dropped();
    test_add_dep();
    test_domination();
    test_tags_and_extents();
    test_scratch();
    test_dump();
    printf("test_plan: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}
