# Tests of app/store/.
