#!/usr/bin/env python3
"""Seed 003 Figure 11 (§5.2): get- vs put-based all-gather, 16 GPUs, 60 workgroups per GPU, with FIFO and with fair control/data arbitration.

Prints the table (algorithm bandwidth per buffer size and series) for the
committed config fig11-allgather-get-put.json; see case_study.py for the options
(--sizes, --max-size, --series, --jobs, --json, --snr).
"""
import case_study

case_study.main("fig11-allgather-get-put.json", __doc__.splitlines()[0])
