#!/usr/bin/env bash
# Runs every pipelines/ script for a few frames into fakesink (scripts not written yet).
exit 77
