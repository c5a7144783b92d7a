# Tests of the desktop's choice of control plane (app/remote/PlaneChoice, RemotePlaneChooser).
warren_add_test(tst_plane_choice SOURCES tst_plane_choice.cpp LIBS warren_plane_opener warren_remote_client warren_secrets LABELS unit)
