#include "ProxyHead.h"
