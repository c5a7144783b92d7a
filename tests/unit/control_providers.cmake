# Tests of app/providers/.
