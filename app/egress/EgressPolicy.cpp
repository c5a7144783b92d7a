#include "EgressPolicy.h"
