#!/bin/sh
. "$TOP_SRCDIR/tests/lib/tap.sh"
done_testing
