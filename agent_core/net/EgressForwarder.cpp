#include "EgressForwarder.h"
