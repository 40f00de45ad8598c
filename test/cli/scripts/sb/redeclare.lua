-- A script that declares sysbench's C surface again, in several chunks and
-- with other spellings of the same declarations (as scripts copied from
-- different sources do), then uses it.
ffi.cdef[[
/* counters */
typedef enum
{
  SB_CNT_OTHER, SB_CNT_READ, SB_CNT_WRITE, SB_CNT_TRX, SB_CNT_ERROR, SB_CNT_RECONNECT, SB_CNT_MAX
} sb_counter_type;
void sb_counter_inc(int, sb_counter_type);
]]
ffi.cdef("typedef struct histogram sb_histogram_t; sb_histogram_t *sb_histogram_new(size_t, double, double);")
ffi.cdef[[
typedef enum { SB_ARG_TYPE_NULL, SB_ARG_TYPE_BOOL, SB_ARG_TYPE_INT, SB_ARG_TYPE_SIZE, SB_ARG_TYPE_DOUBLE,
  SB_ARG_TYPE_STRING, SB_ARG_TYPE_LIST, SB_ARG_TYPE_FILE, SB_ARG_TYPE_MAX } sb_arg_type_t;
typedef bool sb_opt_validate_t(const char *, const char *);
bool sb_more_events(int thread_id);   // the event loop
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
int usleep(unsigned int);
uint64_t sb_counter_val(int, sb_counter_type);
struct wild_own { int a; };           /* a type of the script's own */
]]
ffi.cdef[[ struct wild_own { int a; }; ]]   -- declared twice by two modules

function thread_run(thread_id)
  while ffi.C.sb_more_events(thread_id) do
    ffi.C.sb_event_start(thread_id)
    ffi.C.sb_counter_inc(thread_id, ffi.C.SB_CNT_READ)
    local w = ffi.new("struct wild_own", { ffi.C.sb_rand_uniform(1, 9) })
    assert(w.a >= 1 and w.a <= 9)
    ffi.C.sb_event_stop(thread_id)
  end
end
function thread_done(thread_id)
  print("reads " .. tonumber(ffi.C.sb_counter_val(thread_id, ffi.C.SB_CNT_READ)))
end
function event() end
