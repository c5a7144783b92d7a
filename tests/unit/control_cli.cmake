# Tests of app/cli/.
