# embed_resource(TARGET SYMBOL FILE): compiles FILE's bytes into TARGET as
#   extern const std::string_view SYMBOL;   (declared by the caller)
# so policy stays data in resources/ while the binaries need no files at run time.
function(embed_resource target symbol file)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp)
    add_custom_command(
        OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
                -P ${PROJECT_SOURCE_DIR}/cmake/EmbedResourceScript.cmake
        DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/EmbedResourceScript.cmake
        COMMENT "Embedding ${file}")
    target_sources(${target} PRIVATE ${out})
endfunction()
