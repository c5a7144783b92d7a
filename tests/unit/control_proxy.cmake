# Tests of app/proxy/.
