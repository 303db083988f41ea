/* The exchange of items between the ranks' devices, as a pipeline of chunks.
 *
 * Each rank's items for rank t are a contiguous range of a device buffer, rank after rank; they
 * arrive in a device buffer of the receiver, by source rank. The range for this rank itself is
 * copied on the device. The others go in chunks of at most `chunk` bytes through a ring of
 * `slots` pinned host buffers a direction, in one of two ways a peer:
 *
 *   - through MPI (a peer on another node, or shared memory not to be had):
 *       send slot:    read from the device -> MPI_Isend of the chunk -> free
 *       receive slot: MPI_Irecv of the chunk -> written to the device -> free
 *   - through the node's shared memory (a peer on the same node): the send ring lies in this
 *     rank's segment of a shared window (clperm_dist.c), which every rank of the node has
 *     registered with its OpenCL context, so that the devices' copy engines read and write it
 *     directly and no processor copies a byte:
 *       send slot:    read from the device into the slot -> a notice (the slot's number) to the
 *                     receiver -> its acknowledgement -> free
 *       receive slot: the notice -> the sender's slot written to the device -> the
 *                     acknowledgement -> free
 *
 * One host thread drives both rings, polling events and requests and starting whatever a
 * finished step allows, so that reading, moving and writing overlap: a call costs about its
 * slowest stage instead of the sum of the three. Peers are taken in ring order (step k: send to
 * rank + k, receive from rank - k), so that at each step every rank sends to one rank and
 * receives from another. A chunk (or its notice) is tagged with its index within its peer's
 * range (mod TAG_CHUNKS), an acknowledgement with the slot it frees, so that requests of one peer
 * may complete in any order. A failed read or write is remembered and the pipeline runs on
 * (moving what the slot holds), so that no other rank is left waiting; the callers agree on the
 * status after. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

#define TAG_CHUNKS 16384
#define TAG_ACK TAG_CHUNKS /* + the slot's number */

typedef enum slot_state {
    SLOT_FREE,
    SLOT_COPYING, /* a read (send slot) or a write (receive slot) on the device */
    SLOT_MPI      /* requests in flight */
} slot_state;

typedef struct slot {
    slot_state state;
    unsigned char *host; /* the ring's buffer of this slot */
    size_t bytes;
    int peer, tag, shared;
    uint64_t offset; /* receive slots: the chunk's byte offset in the receive buffer */
    uint64_t notice; /* shared: the sender's slot number */
    cl_event event;
    MPI_Request request[2];
} slot;

/* One direction's walk over the peers' ranges in ring order, chunk by chunk. */
typedef struct cursor {
    int step;       /* 1 .. size - 1; size when every range is taken */
    int direction;  /* +1: sends (to rank + step), -1: receives (from rank - step) */
    uint64_t begin; /* the current peer's range in bytes: [begin, end) */
    uint64_t end;
    uint64_t next;  /* the next chunk's first byte */
} cursor;

typedef struct pipeline {
    clperm_dist *d;
    const clperm__dist_exchange_spec *x;
    uint64_t *send_displ, *recv_displ; /* bytes; size + 1 each */
    size_t chunk;
    slot send[CLPERM__DIST_MAX_SLOTS], recv[CLPERM__DIST_MAX_SLOTS];
    cursor out, in;
    int busy;          /* slots not free */
    clperm_status st;  /* the first OpenCL failure (the pipeline runs on) */
    clperm_status mpi; /* an MPI failure (it ends the pipeline) */
} pipeline;

static int peer_of(const pipeline *p, const cursor *c) {
    int size = p->d->size;
    return ((p->d->rank + c->direction * c->step) % size + size) % size;
}

/* Moves c on to the next peer with bytes left (or to the end). */
static void cursor_settle(const pipeline *p, cursor *c) {
    const uint64_t *displ = c->direction > 0 ? p->send_displ : p->recv_displ;
    while (c->next >= c->end && c->step < p->d->size) {
        if (++c->step == p->d->size) break;
        int t = peer_of(p, c);
        c->begin = c->next = displ[t];
        c->end = displ[t + 1];
    }
}

static void cursor_begin(const pipeline *p, cursor *c, int direction) {
    memset(c, 0, sizeof *c);
    c->direction = direction;
    cursor_settle(p, c);
}

/* The next chunk into s (peer, tag, bytes, way; *offset its first byte); 0 when none is left. */
static int cursor_take(const pipeline *p, cursor *c, slot *s, uint64_t *offset) {
    if (c->step >= p->d->size) return 0;
    s->peer = peer_of(p, c);
    s->shared = p->d->peer_host != NULL && p->d->peer_host[s->peer] != NULL;
    s->tag = (int)(((c->next - c->begin) / p->chunk) % TAG_CHUNKS);
    s->bytes = (size_t)(c->end - c->next < p->chunk ? c->end - c->next : p->chunk);
    *offset = c->next;
    c->next += s->bytes;
    cursor_settle(p, c);
    return 1;
}

static void note_cl(pipeline *p, cl_int err) {
    if (err != CL_SUCCESS && p->st == CLPERM_SUCCESS) p->st = err;
}

static void note_mpi(pipeline *p, int err) {
    if (err != MPI_SUCCESS) p->mpi = CLPERM_ERROR_MPI;
}

static void set_state(pipeline *p, slot *s, slot_state state) {
    p->busy += (state != SLOT_FREE) - (s->state != SLOT_FREE);
    s->state = state;
}

/* Whether the slot's command has finished (a failed one has, and is noted). */
static int event_done(pipeline *p, slot *s) {
    cl_int status = CL_QUEUED;
    cl_int err = clGetEventInfo(s->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (err == CL_SUCCESS && status > CL_COMPLETE) return 0;
    note_cl(p, err != CL_SUCCESS ? err : status);
    clReleaseEvent(s->event);
    s->event = NULL;
    return 1;
}

/* Whether both of the slot's requests (MPI_REQUEST_NULL when not made) have completed. */
static int requests_done(pipeline *p, slot *s) {
    int done = 0;
    note_mpi(p, MPI_Testall(2, s->request, &done, MPI_STATUSES_IGNORE));
    return done;
}

/* A chunk read into the slot goes out: itself through MPI, or the slot's number as a notice
 * (and an acknowledgement awaited) through shared memory. */
static void send_out(pipeline *p, slot *s) {
    MPI_Comm comm = p->d->comm;
    if (s->shared) {
        s->notice = (uint64_t)(s - p->send);
        note_mpi(p, MPI_Isend(&s->notice, 1, MPI_UINT64_T, s->peer, s->tag, comm, &s->request[0]));
        note_mpi(p, MPI_Irecv(NULL, 0, MPI_BYTE, s->peer, TAG_ACK + (int)s->notice, comm, &s->request[1]));
    } else {
        note_mpi(p, MPI_Isend(s->host, (int)s->bytes, MPI_BYTE, s->peer, s->tag, comm, &s->request[0]));
    }
    set_state(p, s, SLOT_MPI);
}

/* One turn of a send slot; returns whether it moved. */
static int turn_send(pipeline *p, slot *s) {
    const clperm__dist_exchange_spec *x = p->x;
    cl_command_queue q = p->d->transfer[0];
    switch (s->state) {
    case SLOT_FREE: {
        uint64_t offset;
        if (!cursor_take(p, &p->out, s, &offset)) return 0;
        cl_int err = clEnqueueReadBuffer(q, x->send, CL_FALSE, (size_t)(x->send_offset + offset), s->bytes, s->host,
                                         0, NULL, &s->event);
        note_cl(p, err);
        if (err != CL_SUCCESS) {
            send_out(p, s); /* what the slot holds: the receiver must not wait for ever */
            return 1;
        }
        clFlush(q);
        set_state(p, s, SLOT_COPYING);
        return 1;
    }
    case SLOT_COPYING:
        if (!event_done(p, s)) return 0;
        send_out(p, s);
        return 1;
    default:
        if (!requests_done(p, s)) return 0;
        set_state(p, s, SLOT_FREE);
        return 1;
    }
}

/* One turn of a receive slot; returns whether it moved. In SLOT_MPI a slot waits for its chunk
 * or notice (request 0), or, written, for its acknowledgement to go (request 1). */
static int turn_recv(pipeline *p, slot *s) {
    const clperm__dist_exchange_spec *x = p->x;
    clperm_dist *d = p->d;
    cl_command_queue q = d->transfer[1];
    switch (s->state) {
    case SLOT_FREE:
        if (!cursor_take(p, &p->in, s, &s->offset)) return 0;
        s->notice = UINT64_MAX;
        if (s->shared)
            note_mpi(p, MPI_Irecv(&s->notice, 1, MPI_UINT64_T, s->peer, s->tag, d->comm, &s->request[0]));
        else
            note_mpi(p, MPI_Irecv(s->host, (int)s->bytes, MPI_BYTE, s->peer, s->tag, d->comm, &s->request[0]));
        set_state(p, s, SLOT_MPI);
        return 1;
    case SLOT_MPI: {
        if (!requests_done(p, s)) return 0;
        if (s->shared && s->notice == UINT64_MAX - 1) {
            set_state(p, s, SLOT_FREE); /* the acknowledgement has gone */
            return 1;
        }
        const unsigned char *from = s->host;
        if (s->shared) {
            if (s->notice >= (uint64_t)d->slots) {
                p->mpi = CLPERM_ERROR_INTERNAL;
                return 1;
            }
            from = d->peer_host[s->peer] + s->notice * p->chunk;
        }
        cl_int err = clEnqueueWriteBuffer(q, x->recv, CL_FALSE, (size_t)(x->recv_offset + s->offset), s->bytes, from,
                                          0, NULL, &s->event);
        note_cl(p, err);
        if (err == CL_SUCCESS) {
            clFlush(q);
        } else {
            s->event = NULL;
        }
        set_state(p, s, SLOT_COPYING);
        return 1;
    }
    default:
        if (s->event && !event_done(p, s)) return 0;
        if (!s->shared) {
            set_state(p, s, SLOT_FREE);
            return 1;
        }
        /* The sender's slot may be reused now. */
        note_mpi(p, MPI_Isend(NULL, 0, MPI_BYTE, s->peer, TAG_ACK + (int)s->notice, d->comm, &s->request[1]));
        s->notice = UINT64_MAX - 1;
        set_state(p, s, SLOT_MPI);
        return 1;
    }
}

/* This rank's own range, copied on the device. */
static clperm_status own_range(pipeline *p) {
    const clperm__dist_exchange_spec *x = p->x;
    int r = p->d->rank;
    uint64_t bytes = p->send_displ[r + 1] - p->send_displ[r];
    if (bytes == 0) return CLPERM_SUCCESS;
    return clEnqueueCopyBuffer(p->d->queue, x->send, x->recv, (size_t)(x->send_offset + p->send_displ[r]),
                               (size_t)(x->recv_offset + p->recv_displ[r]), (size_t)bytes, 0, NULL, NULL);
}

/* Unwinds what an MPI failure left: the events waited for, the requests cancelled. */
static void abandon(pipeline *p) {
    for (int i = 0; i < p->d->slots; i++) {
        slot *both[2] = {&p->send[i], &p->recv[i]};
        for (int k = 0; k < 2; k++) {
            slot *s = both[k];
            if (s->event) {
                clWaitForEvents(1, &s->event);
                clReleaseEvent(s->event);
            }
            for (int j = 0; j < 2; j++) {
                if (s->request[j] == MPI_REQUEST_NULL) continue;
                MPI_Cancel(&s->request[j]);
                MPI_Request_free(&s->request[j]);
            }
        }
    }
}

clperm_status clperm__dist_exchange(clperm_dist *d, const clperm__dist_exchange_spec *x) {
    int size = d->size;
    pipeline *p = calloc(1, sizeof *p);
    uint64_t *displ = calloc(2 * ((size_t)size + 1), sizeof *displ);
    unsigned char *send_ring = d->own_host, *recv_ring = NULL;
    clperm_status st = p && displ ? CLPERM_SUCCESS : CLPERM_ERROR_OUT_OF_HOST_MEMORY;
    if (st == CLPERM_SUCCESS) {
        p->d = d;
        p->x = x;
        p->chunk = d->chunk_bytes;
        p->send_displ = displ;
        p->recv_displ = displ + size + 1;
        for (int t = 0; t < size; t++) {
            p->send_displ[t + 1] = p->send_displ[t] + x->sendcounts[t] * x->item_bytes;
            p->recv_displ[t + 1] = p->recv_displ[t] + x->recvcounts[t] * x->item_bytes;
            if (t != d->rank) {
                d->stats.bytes_sent += x->sendcounts[t] * x->item_bytes;
                d->stats.bytes_received += x->recvcounts[t] * x->item_bytes;
            }
        }
        /* A receive ring only for peers whose chunks come through MPI. */
        int through_mpi = 0;
        for (int t = 0; t < size; t++) through_mpi |= t != d->rank && !(d->peer_host && d->peer_host[t]);
        size_t ring = (size_t)d->slots * p->chunk;
        if (!send_ring) st = clperm__dist_stage(d, 0, ring, (void **)&send_ring);
        if (st == CLPERM_SUCCESS && through_mpi) st = clperm__dist_stage(d, 1, ring, (void **)&recv_ring);
    }
    if (st != CLPERM_SUCCESS) {
        /* Nothing has been sent: the others learn of it in the agreement after. */
        free(p);
        free(displ);
        return st;
    }
    for (int i = 0; i < d->slots; i++) {
        p->send[i].host = send_ring + (size_t)i * p->chunk;
        p->recv[i].host = recv_ring ? recv_ring + (size_t)i * p->chunk : NULL;
        p->send[i].request[0] = p->send[i].request[1] = MPI_REQUEST_NULL;
        p->recv[i].request[0] = p->recv[i].request[1] = MPI_REQUEST_NULL;
    }
    note_cl(p, own_range(p));
    cursor_begin(p, &p->out, +1);
    cursor_begin(p, &p->in, -1);
    /* Receives first, so that no chunk waits for its receive to be posted. */
    for (;;) {
        int moved = 0;
        for (int i = 0; i < d->slots && p->mpi == CLPERM_SUCCESS; i++) moved |= turn_recv(p, &p->recv[i]);
        for (int i = 0; i < d->slots && p->mpi == CLPERM_SUCCESS; i++) moved |= turn_send(p, &p->send[i]);
        if (p->mpi != CLPERM_SUCCESS) break;
        if (!p->busy && p->out.step >= size && p->in.step >= size) break;
        if (!moved) sched_yield();
    }
    if (p->mpi != CLPERM_SUCCESS) abandon(p);
    note_cl(p, clFinish(d->transfer[0]));
    note_cl(p, clFinish(d->transfer[1]));
    note_cl(p, clFinish(d->queue));
    st = p->mpi != CLPERM_SUCCESS ? p->mpi : p->st;
    free(p);
    free(displ);
    return st;
}
