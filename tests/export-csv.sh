#!/bin/sh
. "$TOP_SRCDIR/tests/tap.sh"
done_testing
