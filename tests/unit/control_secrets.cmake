# Tests of app/secrets/.
