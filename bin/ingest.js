#!/usr/bin/env node
'use strict';
require('./run-built')('apps/cli/src/ingest.js');
