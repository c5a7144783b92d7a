#!/bin/sh
# Prints a greeting for the name given as the first argument.
name="${1:-world}"
echo "Helo, $name!"
