# Tests of app/egress/.
