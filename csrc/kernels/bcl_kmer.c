/*
 * bcl_kmer.c -- streaming FASTA/FASTQ parser and canonical k-mer extractor.
 * See bcl_kmer.h for the format rules and the work-sharing rule.
 */
#include "kernels/bcl_kmer.h"

#include <string.h>

#include "serial/bcl_hash.h"

enum {
    ST_BEGIN,      /* between records: expect '>' / '@' (blank lines ok)   */
    ST_HEADER,     /* inside a '>' or '@' line                             */
    ST_SEQ,        /* sequence lines                                       */
    ST_PLUS,       /* FASTQ '+' line                                       */
    ST_QUAL        /* FASTQ quality lines                                  */
};

/* 0..3 bases, 4 breaks the window, 5 is ignored (\r, spaces, tabs). */
static uint8_t code_of[256];
static int table_ready;

static void init_table(void)
{
    if (table_ready)
        return;
    memset(code_of, 4, sizeof code_of);
    code_of['A'] = code_of['a'] = 0;
    code_of['C'] = code_of['c'] = 1;
    code_of['G'] = code_of['g'] = 2;
    code_of['T'] = code_of['t'] = 3;
    code_of['\r'] = code_of[' '] = code_of['\t'] = 5;
    table_ready = 1;
}

bcl_status bcl_kmer_init(bcl_kmer_parser *p, int k, int rank, int nprocs, int block_shift)
{
    if (k < 1 || k > BCL_KMER_MAX_K)
        return bcl_set_error(BCL_ERR_ARG, "k must be in [1, 32], got %d", k);
    if (nprocs < 1 || rank < 0 || rank >= nprocs)
        return bcl_set_error(BCL_ERR_ARG, "rank %d is not in [0, nprocs=%d)", rank, nprocs);
    if (block_shift <= 0 || block_shift >= 63)
        return bcl_set_error(BCL_ERR_ARG, "block_shift must be in [1, 62], got %d",
                             block_shift);
    init_table();
    memset(p, 0, sizeof *p);
    p->k = k;
    p->mask = k == 32 ? ~(uint64_t)0 : (((uint64_t)1 << (2 * k)) - 1);
    p->rc_shift = 2 * (k - 1);
    p->rank = rank;
    p->nprocs = nprocs;
    p->block_shift = block_shift;
    p->state = ST_BEGIN;
    p->line_start = 1;
    return BCL_OK;
}

/* Parse buf[0..n) whose bytes all lie in one ownership block. */
static bcl_status feed_piece(bcl_kmer_parser *p, const unsigned char *buf, size_t n,
                             int owned, uint64_t *out, size_t *nout)
{
    size_t i = 0, w = *nout;
    const int k = p->k, rc_shift = p->rc_shift;
    const uint64_t mask = p->mask;
    uint64_t fwd = p->fwd, rev = p->rev;
    int valid = p->valid;
    uint64_t emitted_total = 0;

    while (i < n) {
        switch (p->state) {
        case ST_BEGIN: {
            unsigned char c = buf[i];
            if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
                i++;
                break;
            }
            if (p->fmt == BCL_FMT_UNKNOWN) {
                if (c == '>') p->fmt = BCL_FMT_FASTA;
                else if (c == '@') p->fmt = BCL_FMT_FASTQ;
                else
                    return bcl_set_error(BCL_ERR_DECODE,
                                         "input is neither FASTA nor FASTQ: byte 0x%02x at "
                                         "offset %llu (expected '>' or '@')",
                                         c, (unsigned long long)(p->offset + i));
            }
            if ((p->fmt == BCL_FMT_FASTA && c != '>') || (p->fmt == BCL_FMT_FASTQ && c != '@'))
                return bcl_set_error(BCL_ERR_DECODE,
                                     "malformed %s: expected '%c' at offset %llu, got 0x%02x",
                                     p->fmt == BCL_FMT_FASTA ? "FASTA" : "FASTQ",
                                     p->fmt == BCL_FMT_FASTA ? '>' : '@',
                                     (unsigned long long)(p->offset + i), c);
            p->records++;
            p->seqlen = p->quallen = 0;
            valid = 0;
            p->state = ST_HEADER;
            i++;
            break;
        }
        case ST_HEADER:
        case ST_PLUS: {
            const unsigned char *nl = memchr(buf + i, '\n', n - i);
            if (!nl) {
                i = n;
                break;
            }
            i = (size_t)(nl - buf) + 1;
            p->line_start = 1;
            p->state = p->state == ST_HEADER ? ST_SEQ : ST_QUAL;
            if (p->state == ST_QUAL)
                p->quallen = 0;
            break;
        }
        case ST_SEQ: {
            if (p->line_start) {
                unsigned char c = buf[i];
                if (p->fmt == BCL_FMT_FASTA && c == '>') {
                    p->state = ST_BEGIN;    /* re-read '>' there */
                    break;
                }
                if (p->fmt == BCL_FMT_FASTQ && c == '+') {
                    p->state = ST_PLUS;
                    i++;
                    break;
                }
                if (c == '\n') {            /* blank line inside sequence */
                    i++;
                    break;
                }
                p->line_start = 0;
            }
            /* the hot loop: bases up to the end of the line or the piece */
            size_t start = i;
            uint64_t seqchars = 0;
            for (; i < n; i++) {
                unsigned char c = buf[i];
                if (c == '\n')
                    break;
                unsigned code = code_of[c];
                if (code < 4) {
                    seqchars++;
                    fwd = ((fwd << 2) | code) & mask;
                    rev = (rev >> 2) | ((uint64_t)(3 - code) << rc_shift);
                    if (valid < k)
                        valid++;
                    if (valid == k) {
                        emitted_total++;
                        if (owned)
                            out[w++] = fwd < rev ? fwd : rev;
                    }
                } else if (code == 4) {
                    seqchars++;
                    valid = 0;
                }
            }
            p->seqlen += seqchars;
            p->bases += i - start;
            if (i < n) {                    /* at '\n' */
                i++;
                p->line_start = 1;
            }
            break;
        }
        case ST_QUAL: {
            if (p->line_start && p->quallen >= p->seqlen) {
                p->state = ST_BEGIN;
                break;
            }
            p->line_start = 0;
            const unsigned char *nl = memchr(buf + i, '\n', n - i);
            size_t end = nl ? (size_t)(nl - buf) : n;
            uint64_t q = 0;
            for (size_t j = i; j < end; j++)
                q += buf[j] != '\r';
            p->quallen += q;
            if (p->quallen > p->seqlen)
                return bcl_set_error(BCL_ERR_DECODE,
                                     "malformed FASTQ: record %llu has a quality string "
                                     "longer than its sequence (%llu > %llu) at offset %llu",
                                     (unsigned long long)p->records,
                                     (unsigned long long)p->quallen,
                                     (unsigned long long)p->seqlen,
                                     (unsigned long long)(p->offset + end));
            if (nl) {
                i = end + 1;
                p->line_start = 1;
                if (p->quallen == p->seqlen)
                    p->state = ST_BEGIN;
            } else {
                i = n;
            }
            break;
        }
        }
    }
    p->fwd = fwd;
    p->rev = rev;
    p->valid = valid;
    p->kmers_total += emitted_total;
    p->kmers_emitted += w - *nout;
    p->offset += n;
    *nout = w;
    return BCL_OK;
}

bcl_status bcl_kmer_feed(bcl_kmer_parser *p, const char *buf, size_t n, uint64_t *out,
                         size_t *nout)
{
    const unsigned char *b = (const unsigned char *)buf;
    *nout = 0;
    while (n > 0) {
        uint64_t block = p->offset >> p->block_shift;
        uint64_t room = ((block + 1) << p->block_shift) - p->offset;
        size_t take = n < room ? n : (size_t)room;
        int owned = (int)(block % (uint64_t)p->nprocs) == p->rank;
        bcl_status st = feed_piece(p, b, take, owned, out, nout);
        if (st != BCL_OK)
            return st;
        b += take;
        n -= take;
    }
    return BCL_OK;
}

bcl_status bcl_kmer_finish(bcl_kmer_parser *p)
{
    if (p->fmt == BCL_FMT_FASTQ) {
        if (p->state == ST_HEADER || p->state == ST_SEQ || p->state == ST_PLUS)
            return bcl_set_error(BCL_ERR_DECODE,
                                 "truncated FASTQ: record %llu has no quality line",
                                 (unsigned long long)p->records);
        if (p->state == ST_QUAL && p->quallen != p->seqlen)
            return bcl_set_error(BCL_ERR_DECODE,
                                 "truncated FASTQ: record %llu has %llu quality characters "
                                 "for %llu bases",
                                 (unsigned long long)p->records,
                                 (unsigned long long)p->quallen,
                                 (unsigned long long)p->seqlen);
    }
    return BCL_OK;
}

int bcl_kmer_encode(const char *s, int k, uint64_t *out)
{
    init_table();
    if (k < 1 || k > BCL_KMER_MAX_K)
        return -1;
    uint64_t fwd = 0, rev = 0;
    for (int i = 0; i < k; i++) {
        unsigned code = code_of[(unsigned char)s[i]];
        if (code > 3)
            return -1;
        fwd = (fwd << 2) | code;
        rev |= (uint64_t)(3 - code) << (2 * i);
    }
    *out = fwd < rev ? fwd : rev;
    return 0;
}

void bcl_kmer_decode(uint64_t kmer, int k, char *out)
{
    static const char letters[4] = { 'A', 'C', 'G', 'T' };
    for (int i = 0; i < k; i++)
        out[i] = letters[(kmer >> (2 * (k - 1 - i))) & 3];
}

void bcl_kmer_hll_add(bcl_hll *s, const uint64_t *kmers, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bcl_hll_add(s, bcl_mix64(kmers[i]));
}
