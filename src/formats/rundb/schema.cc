#include "formats/rundb/schema.h"

namespace snr::rundb {

std::string_view schema_tables_ddl() {
  // Cycles are integers of the replayed chip clock (meta.clock_hz).
  return R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE hw_config (yaml TEXT NOT NULL);
CREATE TABLE chips (
  chip INTEGER PRIMARY KEY, instructions INTEGER NOT NULL, first_cycle INTEGER NOT NULL,
  last_cycle INTEGER NOT NULL, stall_cycles INTEGER NOT NULL);
CREATE TABLE instructions (
  step INTEGER PRIMARY KEY, chip INTEGER NOT NULL, chip_index INTEGER NOT NULL, pc INTEGER NOT NULL,
  op TEXT NOT NULL, mnemonic TEXT NOT NULL, issue_cycle INTEGER NOT NULL, complete_cycle INTEGER NOT NULL,
  stall_cycles INTEGER NOT NULL, stall_reason TEXT NOT NULL);
CREATE TABLE unit_busy (
  chip INTEGER NOT NULL, unit TEXT NOT NULL, start_cycle INTEGER NOT NULL, end_cycle INTEGER NOT NULL,
  first_step INTEGER NOT NULL, instructions INTEGER NOT NULL);
CREATE TABLE dmas (
  dma_id INTEGER PRIMARY KEY, chip INTEGER NOT NULL, issue_step INTEGER NOT NULL, pc INTEGER NOT NULL,
  src_chip INTEGER NOT NULL, src_space TEXT NOT NULL, src_address INTEGER NOT NULL,
  dst_chip INTEGER NOT NULL, dst_space TEXT NOT NULL, dst_address INTEGER NOT NULL,
  bytes INTEGER NOT NULL, link TEXT NOT NULL, semaphore INTEGER NOT NULL,
  issue_cycle INTEGER NOT NULL, base_done_cycle INTEGER NOT NULL,
  transfer_start_cycle INTEGER NOT NULL, transfer_end_cycle INTEGER NOT NULL,
  wait_chip INTEGER, wait_step INTEGER, wait_start_cycle INTEGER, wait_end_cycle INTEGER);
CREATE TABLE vmem_runs (
  chip INTEGER NOT NULL, first_page INTEGER NOT NULL, last_page INTEGER NOT NULL, is_write INTEGER NOT NULL, first_cycle INTEGER NOT NULL,
  last_cycle INTEGER NOT NULL, accesses INTEGER NOT NULL);
CREATE TABLE semaphore_events (
  sequence INTEGER PRIMARY KEY, chip INTEGER NOT NULL, semaphore INTEGER NOT NULL, op TEXT NOT NULL,
  cycle INTEGER NOT NULL, amount INTEGER NOT NULL, value_after INTEGER NOT NULL, from_chip INTEGER NOT NULL);
CREATE TABLE dependencies (
  producer_step INTEGER NOT NULL, consumer_step INTEGER NOT NULL, kind TEXT NOT NULL, chip INTEGER NOT NULL,
  first INTEGER NOT NULL, last INTEGER NOT NULL);
)sql";
}

std::string_view schema_indexes_ddl() {
  return R"sql(
CREATE INDEX instructions_by_chip ON instructions (chip, issue_cycle);
CREATE INDEX instructions_by_op ON instructions (op);
CREATE INDEX unit_busy_by_chip ON unit_busy (chip, unit, start_cycle);
CREATE INDEX dmas_by_chip ON dmas (chip, issue_cycle);
CREATE INDEX vmem_runs_by_page ON vmem_runs (chip, first_page, first_cycle);
CREATE INDEX dependencies_by_consumer ON dependencies (consumer_step);
CREATE INDEX dependencies_by_producer ON dependencies (producer_step);

-- Time per op: each instruction owns its issue cycle and the stall before it,
-- which partitions a chip's issue timeline.
CREATE VIEW op_summary AS
  SELECT chip, op, COUNT(*) AS instructions, SUM(stall_cycles + 1) AS cycles, SUM(stall_cycles) AS stall_cycles
  FROM instructions GROUP BY chip, op;
-- Seed 000 Figure 4: base latency, transfer (with link queueing), and the
-- part of the wait the DMA really cost (stall) versus the slack before it.
-- wait_stall_cycles is the consuming WAIT's whole stall; charged_*_cycles
-- is this DMA's share of it, split as snr analyze and snr diff split it
-- (metrics/wait_stall.h: from the previous completion among the WAIT's
-- DMAs, or the WAIT's start, to its own, base latency first), so a WAIT
-- consuming several DMAs is counted once over them.
CREATE VIEW dma_stalls AS
  WITH ordered AS (
    SELECT *, LAG(transfer_end_cycle) OVER (PARTITION BY wait_chip, wait_step
                                            ORDER BY transfer_end_cycle, dma_id) AS previous_end_cycle
    FROM dmas),
  charged AS (
    SELECT *, MAX(wait_start_cycle, MIN(COALESCE(previous_end_cycle, 0), wait_end_cycle)) AS charged_from_cycle,
           MAX(0, MIN(transfer_end_cycle, wait_end_cycle)
                  - MAX(wait_start_cycle, MIN(COALESCE(previous_end_cycle, 0), wait_end_cycle))) AS charged_cycles
    FROM ordered)
  SELECT dma_id, chip, link, bytes,
         base_done_cycle - issue_cycle AS base_latency_cycles,
         transfer_start_cycle - base_done_cycle AS queue_cycles,
         transfer_end_cycle - transfer_start_cycle AS transfer_cycles,
         transfer_end_cycle - issue_cycle AS total_cycles,
         CASE WHEN wait_end_cycle IS NULL THEN NULL ELSE wait_end_cycle - wait_start_cycle END AS wait_stall_cycles,
         CASE WHEN wait_start_cycle IS NULL THEN NULL
              WHEN wait_start_cycle > transfer_end_cycle THEN wait_start_cycle - transfer_end_cycle ELSE 0 END AS slack_cycles,
         charged_cycles AS charged_stall_cycles,
         MIN(charged_cycles, MAX(0, base_done_cycle - charged_from_cycle)) AS charged_base_stall_cycles,
         charged_cycles - MIN(charged_cycles, MAX(0, base_done_cycle - charged_from_cycle))
           AS charged_transfer_stall_cycles
  FROM charged;
-- Dependency edges with the resource spelled out: x5, v3, dma 12, chip 1
-- vmem pages 4-7, chip 0 smem 0x8000-0x8007.
CREATE VIEW dependency_edges AS
  SELECT producer_step, consumer_step,
         CASE kind WHEN 'x' THEN 'register' WHEN 'v' THEN 'register' ELSE kind END AS kind,
         CASE kind WHEN 'x' THEN 'x' || first WHEN 'v' THEN 'v' || first
                   WHEN 'dma' THEN 'dma ' || first
                   WHEN 'vmem' THEN 'chip ' || chip || ' vmem pages ' || first || '-' || last
                   ELSE 'chip ' || chip || ' ' || kind || ' ' || printf('0x%x-0x%x', first, last) END AS via
  FROM dependencies;
CREATE VIEW stall_summary AS
  SELECT chip, stall_reason, COUNT(*) AS instructions, SUM(stall_cycles) AS stall_cycles
  FROM instructions WHERE stall_cycles > 0 GROUP BY chip, stall_reason;
)sql";
}

}  // namespace snr::rundb
