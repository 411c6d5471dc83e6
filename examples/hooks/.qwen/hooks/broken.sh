#!/usr/bin/env bash
# Deliberately broken: this file is not executable (mode 644), so the CLI cannot run it.
echo '{}'
