#!/bin/sh
# The project's test: greet.sh must greet properly.
expected="Hello, Warren!"
actual="$(sh greet.sh Warren)"
if [ "$actual" = "$expected" ]; then
    echo "PASS: $actual"
else
    echo "FAIL: expected \"$expected\", got \"$actual\""
    exit 1
fi
