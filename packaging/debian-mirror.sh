#!/bin/sh
# Prints the Debian mirror this host's apt already uses (its main archive, not security or updates), for
# the tools that fetch from Debian beside apt: debootstrap (packaging/test-package.sh) and Debian 13's
# AppArmor parser (packaging/check-apparmor-profile.sh).
# shellcheck disable=SC2016 # $(REPO_URI) is apt's format, not the shell's
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' |
         awk '$2 !~ /security|updates|backports/ { print $1; exit }')
[ -n "$mirror" ] || { echo "debian-mirror: apt's sources name no Debian mirror" >&2; exit 1; }
echo "${mirror%/}"
